"""Shared fixtures. Tests run offline (HF_HUB_OFFLINE=1) on the small embedded judge."""

import os

# Idle OpenMP threads sleep instead of spinning: on a small machine shared with other jobs, spinning threads
# made the CPU forward passes over 10x slower. Must be set before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest  # noqa: E402

from localjudge import load_judge  # noqa: E402
from localjudge.cache import ResultCache  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "server: starts a real vLLM server (select with -m server, skip with -m 'not server')")
    config.addinivalue_line("markers", "space: builds a metric folder's Hub Space environment (minutes the first time)")
    config.addinivalue_line("markers", "browser: drives a metric's Gradio widget in headless Chromium")


@pytest.fixture(scope="session")
def smol_judge():
    """The embedded SmolLM2-135M judge, loaded once for the whole session (converted on first use)."""
    return load_judge("smollm2-135m")


@pytest.fixture(scope="session")
def smol_judge_fp32():
    """The same judge in fp32, where batching must not change a result beyond float rounding."""
    return load_judge("smollm2-135m", dtype="float32")


@pytest.fixture(scope="session")
def smol_judge_bf16():
    """The same judge in bf16 on any CPU (the default dtype only where the CPU computes it natively)."""
    return load_judge("smollm2-135m", dtype="bfloat16")


@pytest.fixture
def fresh_cache(smol_judge, tmp_path):
    """Give `smol_judge` an empty result cache for one test, and restore its own cache afterwards."""
    saved = smol_judge.cache
    smol_judge.cache = ResultCache(tmp_path / "r.sqlite")
    try:
        yield smol_judge.cache
    finally:
        smol_judge.cache = saved
