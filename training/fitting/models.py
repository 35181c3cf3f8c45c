"""The DAE arc model (Goyal & Durrett 2020 §3) and a sentence-pair classifier over a pre-trained encoder."""
from __future__ import annotations

import torch
from torch import nn

DAE = "dae"
PAIR = "pair"


class DaeArcModel(nn.Module):
    """An arc is [child last sub-word state; head last sub-word state; relation embedding] -> linear -> 2 classes."""

    def __init__(self, encoder, n_relations: int):
        super().__init__()
        self.encoder = encoder
        hidden = encoder.config.hidden_size
        self.relation = nn.Embedding(n_relations, hidden)
        self.classifier = nn.Linear(3 * hidden, 2)

    def forward(self, input_ids, attention_mask, token_type_ids, child, head, relation, **_):
        """Arc logits [batch, arcs, 2]."""
        states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        index = lambda positions: states.gather(1, positions.unsqueeze(-1).expand(-1, -1, states.size(-1)))  # noqa
        return self.classifier(torch.cat([index(child), index(head), self.relation(relation)], dim=-1))


class PairClassifier(nn.Module):
    """Mean of the token states of [CLS] premise [SEP] hypothesis [SEP] -> linear -> 2 or 3 classes (mean pooling:
    what sentence encoders such as the default MiniLM are trained for)."""

    def __init__(self, encoder, n_labels: int):
        super().__init__()
        self.encoder = encoder
        self.classifier = nn.Linear(encoder.config.hidden_size, n_labels)

    def forward(self, input_ids, attention_mask, token_type_ids, **_):
        """Pair logits [batch, labels]."""
        states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        return self.classifier((states * mask).sum(1) / mask.sum(1))


def loss_of(task: str, logits, labels):
    """Cross-entropy; unlabelled arcs (label -100) are ignored, so they never change the loss."""
    return nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), labels.reshape(-1),
                                       ignore_index=-100)


def build_model(task: str, encoder, n_out: int) -> nn.Module:
    """The task's model over an encoder: n_out relations (dae) or labels (pair)."""
    return DaeArcModel(encoder, n_out) if task == DAE else PairClassifier(encoder, n_out)


def pick_device(name: str):
    """cuda when asked (or 'auto' and present), else cpu; asking for cuda without one is an error."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("--device cuda: no CUDA device is available")
    try:
        return torch.device(name)
    except RuntimeError:  # torch's word lists two dozen device types
        raise ValueError(f"--device {name}: not a device (cpu, cuda, cuda:N or auto)") from None


def autocast(device):
    """bf16 autocast on CUDA, nothing on CPU (CPU runs stay fp32 and deterministic)."""
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")


def to_device(batch: dict, device) -> dict:
    return {k: v.to(device) for k, v in batch.items()}


def forward(model, batch: dict, device):
    """Logits of a collated batch (arc logits for the DAE model), in fp32."""
    with autocast(device):
        return model(**to_device(batch, device)).float()
