"""What identifies a judge's weights on disk, for the result cache and for recognising an embedded judge: the
sha256 of its (GGUF) files, or a fingerprint of a model directory. Used by the registry and the backends."""

import hashlib
from pathlib import Path


def sha256_of_files(paths) -> str:
    """sha256 of the files concatenated in order, streamed."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
    return digest.hexdigest()


def directory_fingerprint(directory: Path) -> str:
    """A model directory's files by name and size, and the contents of its JSON files (config, tokenizer)."""
    digest = hashlib.sha256()
    for path in sorted(Path(directory).iterdir()):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.name}:{stat.st_size}".encode())
            if path.suffix == ".json":
                digest.update(path.read_bytes())
    return digest.hexdigest()
