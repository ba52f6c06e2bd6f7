"""Where the tuned judge's shipped adapters live: package data, one file per judge, named by the judge's
`settings_key` (the embedded judge whose weights it runs). No torch here: `import localjudge` stays light."""

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def default_adapter_path(judge) -> Path:
    """Where the shipped adapter of `judge` (a loaded judge or a name) lives in the package."""
    return DATA / f"{getattr(judge, 'settings_key', judge)}.adapter.safetensors"


def adapter_path(name: str) -> Path:
    """An adapter file's path from a judge's name (its shipped adapter) or a path."""
    return Path(name) if name.endswith(".safetensors") else default_adapter_path(name)
