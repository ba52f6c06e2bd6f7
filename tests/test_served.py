"""The served judge against a real vLLM server (CPU build, started here on 127.0.0.1 with the embedded SmolLM2
judge's checkpoint): the address alone finds the model and its tokenizer; both metric modules, `map_scorer` and
the CLI score through it; its verdicts agree with the in-process judge on the same rows; a server killed mid-run
loses nothing already scored, leaves the rest NaN with the reason, and a restarted server completes the run from
the result cache.

Agreement tolerance: both judges run the same weights in bf16 on the same token ids, but with different kernels
(vLLM's CPU attention and GEMMs against PyTorch's). bf16 keeps 8 bits of mantissa, so a logit near 20 is only
known to about ±0.06, and the two kernels round and accumulate differently. Measured on this test's rows (208
tokens, 25 verdicts): per-token log-probabilities differed by 0.046 on average, 0.32 at most; the mean over an
item's tokens (what likelihood verdicts use) by 0.11 at most; verdict probabilities by 0.007 on average, 0.043
at most. The tests allow about 1.5x those maxima: |Δ log P| ≤ 0.5 per token and ≤ 0.1 on average, ≤ 0.2 on an
item's mean, |Δp| ≤ 0.075 per verdict, and the same yes/no on every verdict farther than that from 0.5. Greedy
generations are not compared token for token: bf16 noise flips near-ties, and one flip changes the rest.
"""

import json
import math
import socket
from pathlib import Path

import datasets
import evaluate
import httpx
import pytest
from scoring_worker import SOURCES, SUMMARIES
from vllm_server import VllmServer, free_port, vllm_python

from localjudge import cli, load_judge, map_scorer
from localjudge.cache import ResultCache
from localjudge.judges.served import JudgeServerError
from localjudge.judges.registry import resolve_judge

pytestmark = pytest.mark.server

REPOSITORY = Path(__file__).resolve().parent.parent
NAME = "smollm2-135m"
PROBABILITY_TOLERANCE = 0.075
# Made-up retrieval rows written for these tests: each answer's chunks, the useful one among unrelated ones.
QUESTIONS = [
    "When will the Elmvale park open?",
    "What did Harwick Foods recall?",
    "What replaces the Lumen Bay ferry in January?",
]
ANSWERS = ["The park will open in May.", "It recalled its oat biscuits.", "A bus replaces the ferry."]
CHUNKS = [
    [SOURCES[0], "The Corvale rowing club won the regatta.", "Brackenford opened a library on Saturday."],
    ["A bakery opened on Mill Street in Oster Vale.", SOURCES[1]],
    [SOURCES[2], "The Elmvale council met on Monday to discuss the budget."],
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A vLLM server on the SmolLM2 judge's converted checkpoint, served under the judge's name (so it gets the
    judge's verdict settings); killed at the end of the module."""
    checkpoint = resolve_judge(NAME).source
    vllm = VllmServer(vllm_python(), checkpoint, NAME, tmp_path_factory.mktemp("vllm") / "server.log")
    vllm.start()
    yield vllm
    vllm.kill()


@pytest.fixture(scope="module")
def modules():
    return evaluate.load(str(REPOSITORY / "summarization_score")), evaluate.load(str(REPOSITORY / "context_utilization"))


def score_both(modules, judge, **options):
    summarization, utilization = modules
    return (
        summarization.compute(summary=SUMMARIES, contexts=[[s] for s in SOURCES], judge=judge, **options),
        utilization.compute(question=QUESTIONS, answer=ANSWERS, contexts=CHUNKS, judge=judge, **options),
    )


def verdicts(summary_result, utilization_result):
    """Every verdict probability of both results, in order."""
    units = [unit["p_yes"] for row in summary_result["details"] for unit in row["claims"] + row["questions"]]
    return units + [p for row in utilization_result["verdicts"] for p in row]


def test_the_address_alone_finds_the_model_and_its_tokenizer(server, smol_judge):
    judge = load_judge(server.address)
    assert judge.name == NAME and judge.context_window == 4096
    assert judge.fingerprint.startswith(f"served:{NAME}:dir:")
    # prompts are the in-process judge's, token for token: the served directory's own tokenizer and template
    prompt = judge.render("Is the sky blue? Answer yes or no.")
    assert prompt == smol_judge.render("Is the sky blue? Answer yes or no.")
    assert judge._encode(prompt) == smol_judge._encode(prompt)
    assert load_judge(f"{server.address}#{NAME}").name == NAME
    with pytest.raises(JudgeServerError, match=f"serves no model named 'other'.*{NAME}"):
        load_judge(server.address, model="other")


def test_operations_agree_with_the_in_process_judge(server, smol_judge):
    judge = load_judge(server.address)
    prompts = [
        smol_judge.render(f"{source}\n\nDoes the text mention {topic}? Answer yes or no.")
        for source, topic in zip(SOURCES, ["a park", "a ferry", "a ferry", "books", "a bakery", "rye bread"])
    ]
    served, local = judge.yes_probability(prompts, cache=False), smol_judge.yes_probability(prompts, cache=False)
    assert served == pytest.approx(local, abs=PROBABILITY_TOLERANCE)

    contexts, continuations = [f"{source}\n\nIn short: " for source in SOURCES] + [""], SUMMARIES + ["Hello world."]
    served = judge.token_logprobs(contexts, continuations, cache=False)
    local = smol_judge.token_logprobs(contexts, continuations, cache=False)
    assert [len(row) for row in served] == [len(row) for row in local]
    differences = [abs(s - l) for served_row, local_row in zip(served, local) for s, l in zip(served_row, local_row)]
    assert max(differences) <= 0.5 and sum(differences) / len(differences) <= 0.1
    for served_row, local_row in zip(served, local):
        assert abs(sum(served_row) / len(served_row) - sum(local_row) / len(local_row)) <= 0.2

    generated = judge.generate([smol_judge.render("What is two plus two?")], max_new_tokens=16, cache=False)
    assert generated[0].strip() and judge.take_failures() == []


def test_both_metrics_through_the_server_agree_with_the_in_process_judge(server, smol_judge, modules):
    served = score_both(modules, server.address, cache=False, return_details=True, progress=False)
    local = score_both(modules, smol_judge, cache=False, return_details=True, progress=False)
    served_verdicts, local_verdicts = verdicts(*served), verdicts(*local)
    assert len(served_verdicts) == len(local_verdicts) > 20
    assert served_verdicts == pytest.approx(local_verdicts, abs=PROBABILITY_TOLERANCE)
    clear_cut = [(s, l) for s, l in zip(served_verdicts, local_verdicts) if abs(l - 0.5) > PROBABILITY_TOLERANCE]
    assert len(clear_cut) > 0.75 * len(local_verdicts)
    assert [s >= 0.5 for s, _ in clear_cut] == [l >= 0.5 for _, l in clear_cut]
    for served_result, local_result in zip(served, local):
        assert served_result["num_failed"] == local_result["num_failed"] == 0


def test_map_scorer_and_the_cli_take_the_address(server, tmp_path, capsys):
    address = f"{server.address}#{NAME}"
    rows = datasets.Dataset.from_dict({"question": QUESTIONS[:2], "answer": ANSWERS[:2], "contexts": CHUNKS[:2]})
    scored = rows.map(map_scorer("context_utilization", judge=address, progress=False), batched=True)
    assert all(0.0 <= score <= 1.0 for score in scored["context_utilization"])

    data = tmp_path / "rows.jsonl"
    rows.to_json(data, lines=True)
    assert cli.main(["score", "context_utilization", str(data), "-o", str(tmp_path / "out.jsonl"), "--judge", address]) == 0
    assert f"judge: {NAME}" in capsys.readouterr().out
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [row["context_utilization"] for row in written] == pytest.approx(scored["context_utilization"])


def test_an_address_where_no_server_answers_is_a_one_line_error(tmp_path, capsys):
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"question": QUESTIONS[0], "answer": ANSWERS[0], "contexts": CHUNKS[0]}) + "\n")
    address = f"http://127.0.0.1:{free_port()}/v1"
    assert cli.main(["score", "context_utilization", str(data), "-o", str(tmp_path / "out.jsonl"), "--judge", address]) == 1
    assert f"No judge server answers at {address} (ConnectError" in capsys.readouterr().err


def test_a_server_without_prompt_logprobs_gets_a_clear_error(server, tmp_path):
    judge = load_judge(server.address, cache_dir=tmp_path)
    post = judge._post

    def without_prompt_logprobs(payload):  # the real server's answers, minus what such a server leaves out
        answer = post(payload)
        for choice in answer["choices"]:
            choice.pop("prompt_logprobs", None)
            if payload.get("echo"):
                choice["logprobs"]["token_logprobs"] = choice["logprobs"]["token_logprobs"][-1:]
        return answer

    judge._post = without_prompt_logprobs
    with pytest.raises(JudgeServerError, match=r"(?s)no log-probabilities of prompt tokens.*`echo`.*`prompt_logprobs`.*yes/no"):
        judge.loglikelihood(["The capital of France is"], [" Paris."])
    # the yes/no verdicts still work
    assert 0.0 < judge.yes_probability([judge.render("Is Paris in France? Answer yes or no.")])[0] < 1.0


def test_timeouts_are_retried_then_the_item_is_nan_with_the_reason(server, tmp_path):
    judge = load_judge(server.address, cache_dir=tmp_path, retries=2)
    judge.backoff = 0.01
    judge.client.timeout = httpx.Timeout(0.2, connect=10.0)
    attempts = []
    post = judge.client.post
    judge.client.post = lambda *args, **kwargs: attempts.append(1) or post(*args, **kwargs)
    prompt = judge.render("Is Paris in France? Answer yes or no.")
    # then pointed at a server on 127.0.0.1 that takes the connection and never answers: a 1 ms timeout against
    # the real server raced its answer (it came first once, in CI, when the client thread was scheduled late)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        judge.address = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        judge.client.base_url = judge.address + "/"
        (probability,) = judge.yes_probability([prompt])
    assert math.isnan(probability) and len(attempts) == 3
    (failure,) = judge.take_failures()
    assert judge.address in failure and "Timeout" in failure
    assert len(judge.cache) == 0  # a failure is never cached: the next run asks again


def test_a_killed_server_loses_nothing_scored_and_a_restart_completes_from_the_cache(server, tmp_path):
    judge = load_judge(server.address, cache_dir=tmp_path)
    judge.backoff = 0.05
    rows = datasets.Dataset.from_dict({"summary": SUMMARIES, "contexts": [[s] for s in SOURCES]})
    # one request in flight, so the kill falls between two known requests
    scorer = map_scorer("summarization_score", judge=judge, details=True, batch_size=1, progress=False)
    requests, batch_ends = [], []
    post = judge._post

    def post_or_kill(payload):  # the server dies just before the 4th request of the dataset's 2nd batch
        if len(batch_ends) == 1 and len(requests) == batch_ends[0] + 3:
            server.kill()
        requests.append(payload)
        return post(payload)

    def score_batch(batch):
        scored = scorer(batch)
        batch_ends.append(len(requests))
        return scored

    judge._post = post_or_kill
    first = rows.map(score_batch, batched=True, batch_size=2)  # ends by itself: no exception
    cache = ResultCache(tmp_path / "results.sqlite")
    committed = len(cache)
    # every answer the server gave is stored: batch 1's (less the one request that asked how it returns
    # prompt log-probabilities) and the 3 of batch 2 before the kill
    assert committed == batch_ends[0] - 1 + 3
    scores = first["summarization_score"]
    assert not any(math.isnan(score) for score in scores[:2])
    for error, score in zip(first["error"][2:], scores[2:]):
        assert math.isnan(score)
        assert "the judge returned no verdict" in error and server.address in error and "ConnectError" in error

    server.start()
    requests.clear()
    again = rows.map(scorer, batched=True, batch_size=2)
    assert not any(math.isnan(score) for score in again["summarization_score"])
    assert len(requests) == len(cache) - committed  # only what the killed run had not stored was asked again
    assert again["summarization_score"][:2] == scores[:2]
