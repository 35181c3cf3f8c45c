"""Tiny random seq2seq models built from a config (no hub) with an offline word-level tokenizer, for generator tests."""
from tokenizers import Tokenizer, models, pre_tokenizers, processors
from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

WORDS = sorted(set("can you people guarantee the liquidation of bluestar ? disposal death 's a dog cat sleeps "
                   "chased garden in John gave Mary book".split()))
BART_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
T5_SPECIALS = ["<pad>", "</s>", "<unk>", "<s>"]


def word_tokenizer(specials: list[str], template: str, words: list[str] = WORDS) -> PreTrainedTokenizerFast:
    """A word-level tokenizer over words with the model family's special tokens (template: '<s> $A </s>' for BART)."""
    vocab = {w: i for i, w in enumerate(specials + sorted(set(words) - set(specials)))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single=template, special_tokens=[(s, vocab[s]) for s in specials if s in template])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>", bos_token="<s>")


def tiny_bart(words: list[str] = WORDS, **config) -> tuple[BartForConditionalGeneration, PreTrainedTokenizerFast]:
    """A one-layer random BART decoding like bart-base (decoder starts from eos); config overrides BartConfig's."""
    tokenizer = word_tokenizer(BART_SPECIALS, "<s> $A </s>", words)
    config = {"d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
              "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32, "max_position_embeddings": 64,
              "bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 2,
              "forced_eos_token_id": None, "init_std": 0.5, **config}
    return BartForConditionalGeneration(BartConfig(vocab_size=len(tokenizer), **config)), tokenizer


def saved(path, model, tokenizer):
    """The model (safetensors) and its tokenizer saved to path; returns path."""
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def save_tiny_bart(path, words: list[str], seed: int = 0, **config):
    """tiny_bart(words) with torch seeded, saved with its tokenizer to path; returns path."""
    import torch

    torch.manual_seed(seed)
    return saved(path, *tiny_bart(words, **config))
