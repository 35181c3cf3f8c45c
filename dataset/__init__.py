"""The dataset lifecycle: split, shard, manifest, output policy, writer lock and the one publish step."""
