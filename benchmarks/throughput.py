"""Throughput of the localjudge metrics against the references' call pattern and the judge's own forward-pass rate.

The workload is built here, deterministically (each row from its own seeded `random.Random`): made-up local news
about fictional towns and companies. Summarization rows have a ~2,000-character source and a ~300-character
summary; RAG rows have a question, an answer and 5 retrieved chunks of ~400 characters. Per judge, in one run:

1. ours: rows/s of `summarization_score` and `context_utilization` through `evaluate.load(...).compute(...)` with
   `cache=False` (the judge really runs) and otherwise default options; the tuned judges the judge's settings
   apply (the default judge's verdict of claims) are built before, their one-off cost reported apart;
2. reference: rows/s of the references' call pattern (`reference_pipeline.py`: Ragas and Mastra generate JSON,
   one call at a time, batch size 1) on the same judge, on the first `--reference-rows` rows only (it is slow),
   and the number of generations whose JSON did not parse (ours has none: its verdicts are probabilities);
3. limit: tokens/s of a batched forward pass of the judge's transformer (8 × 512 tokens of the workload's text;
   after a warm-up, the faster of two passes), against the tokens/s our compute fed the transformer. Tokens are
   counted by wrapping the judge's `base_model.forward` (a shared prefix is fed, and counted, once; padding is
   counted apart), its output head (timed apart: the limit leaves it out) and the engine's batch runner (the
   full prompt lengths, i.e. the tokens without prefix sharing);
4. cache: the same compute twice with the result cache on, starting from an empty temporary cache;
5. memory and start-up: resident memory (peak sampled during each phase, and the process's high-water mark
   after it); in fresh processes, the judge's load time (warm model cache) and the peak memory growth of
   summarization over N/4 and N rows (memory should not grow with the number of rows).

6. served (only with `--server URL`, instead of 1-5): rows/s of both metrics through a judge served at URL (vLLM's
   OpenAI-compatible API) against the in-process judge on the same checkpoint and rows, cache off, in one run;
   and how far apart their scores are. Serve the checkpoint that `--judge` names under that name, e.g. for
   smollm2-135m its converted directory from `localjudge.judges.registry.resolve_judge("smollm2-135m")` (docs/scaling.md):

    python3 benchmarks/throughput.py --judge smollm2-135m --server http://127.0.0.1:8000/v1 --summary-rows 8 --rag-rows 8

   With `--tuned`, summary claims get the tuned verdict (`prompts.TUNED_ALIGNMENT`): in this process the adapter's
   layers in a copy of the model's modules that shares its weights, through the server the adapter it applies
   (serve it as `localjudge export-adapter` prints).

7. tuned (only with `--compare-tuned [K ...]`, instead of 1-5): rows/s of `summarization_score` with the judge's tuned
   alignment verdict (`prompts.TUNED_ALIGNMENTS`) against the likelihood verdict it gives without the adapter
   (`verdicts.stateless_setting`: `ALIGNMENT_Q10`, the default judge's default until issue 58), on the same rows in
   this process, cache off: the tuned verdict with each claim judged against the K windows BM25 ranks first for it (`Verdict.top_windows`;
   K = 0: every window; default: every window and the shipped K), every verdict timed `--repeats` times in turn,
   the faster kept; the tuned judge is built, and both models warmed up on the first row, before the timing (its
   one-off cost is reported apart). Claims are the only units a tuned verdict judges: context_utilization runs no
   tuned verdict, its rows/s is the same either way.

    python3 benchmarks/throughput.py --judge qwen2.5-coder-0.5b --summary-rows 8 --compare-tuned

8. questions (only with `--compare-questions N [N ...]`, instead of 1-5): rows/s of `summarization_score` asking each
   source N sentences (`max_questions`; 0: the default, 3 of prose and 10 of a dialogue, `keyfacts.question_count`),
   on the same rows in this process, cache off, timed as in 7 (the workload's sources are prose).

    python3 benchmarks/throughput.py --judge qwen2.5-coder-0.5b --summary-rows 8 --compare-questions 0 10

Development runs should stay tiny:

    python3 benchmarks/throughput.py --judge smollm2-135m --summary-rows 2 --rag-rows 2 --reference-rows 1

The full run (defaults: both embedded judges, 32 + 32 rows, 4 reference rows) takes tens of minutes on a CPU.
"""

import os

# idle OpenMP threads must sleep, not spin, on a shared CPU (set before torch is imported; see tests/conftest.py)
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import evaluate  # noqa: E402
import psutil  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

from localjudge import EMBEDDED_JUDGES, load_judge  # noqa: E402
from localjudge.cache import ResultCache  # noqa: E402
from localjudge.prompts import DEFAULT_SETTINGS, TUNED_ALIGNMENT, TUNED_ALIGNMENTS  # noqa: E402
from localjudge.settings import settings_label  # noqa: E402
from localjudge.verdicts import judge_settings, stateless_setting  # noqa: E402
from reference_pipeline import ReferencePipeline  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LIMIT_BATCH, LIMIT_LENGTH = 8, 512  # 4,096 tokens: the engine's largest batch on a CPU (max_batch_tokens)
TARGETS = {"reference": 20.0, "limit": 0.60, "cache": 50.0}

# ---------------------------------------------------------------------------------------------- workload
TOWNS = ["Harrowmere", "Quillby Cross", "Ostervale", "Pennick Bay", "Larchford", "Sedgewick Hollow", "Tamsin Reach",
         "Brackenholt", "Wrenfield", "Caddow Mills"]
COMPANIES = ["Varrow Freight", "Ellison Kiln Works", "Northgale Solar", "Pimbury Textiles", "Corran Dairy Cooperative",
             "Hestwick Robotics", "Marlow & Finch Bakeries", "Duskfield Water", "Ambervane Logistics",
             "Tollgate Biotech"]
PEOPLE = ["Mara Tellis", "Joren Abbot", "Ilse Varga", "Tobias Quent", "Nadia Orrin", "Felix Damaro", "Greta Holm",
          "Owen Sallow", "Priya Castell", "Lukas Brenner", "Odile Farrant", "Samir Keel"]
PROJECTS = ["a battery storage depot", "a cold-storage warehouse", "a glass recycling plant", "a solar panel factory",
            "a bakery distribution centre", "a robotics test hall", "a water bottling plant"]
SITES = ["paper mill", "brickworks", "railway yard", "textile factory", "cattle market", "gasworks"]
STREETS = ["Mill Lane", "Station Road", "Kingsway", "Ferry Street", "Orchard Row", "Quarry Hill"]
RIVERS = ["Kessel", "Armel", "Tarrow", "Vennick", "Lyde"]
FAMILIES = ["Ashdown", "Merriweather", "Coldharbour", "Pell", "Fenwick"]
CURRENCIES = ["euros", "pounds", "dollars", "crowns"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

# The story's sentences; the first one opens every source, the rest come in a per-row order.
STORY = [
    "{town}, a river town of {population:,} people, has agreed to let {company} build {project} on the site of the "
    "old {site}.",
    "The plan was approved by {votes_for} votes to {votes_against} at a council meeting on {weekday}, {month} {day}.",
    "{company} will invest {investment} million {currency} over {years} years, according to its chief executive, "
    "{ceo}.",
    "Construction is expected to begin in {start_month} {year} and to create about {jobs} jobs.",
    "{mayor}, the mayor of {town}, said the project would put the town back on the map after the {site} closed in "
    "{closure_year}.",
    "Not everyone is convinced: {critic}, who chairs the {town} Residents' Association, warned that traffic on "
    "{street} could rise by {traffic}%.",
    "The association collected {signatures:,} signatures against the plan in {petition_weeks} weeks.",
    "{company}'s revenue grew by {growth}% last year to {revenue} million {currency}, its annual report shows.",
    "The company already employs {staff:,} people at its headquarters in {hq_town}.",
    "Under the agreement, {company} will pay the town an annual fee of {fee},000 {currency} for the first "
    "{fee_years} years.",
    "The council's treasurer, {treasurer}, said the fee would pay for the repair of {bridges} bridges and the "
    "reopening of the public library on {street}.",
    "A survey by the local newspaper, the {town} Courier, found that {support}% of residents support the plan and "
    "{oppose}% oppose it.",
    "Environmental groups asked for a study of the {river} River wetlands, home to {bird_species} species of birds.",
    "{company} has promised to plant {trees:,} trees and to fund a cycle path of {path_km} kilometres along the "
    "{river}.",
    "The regional transport authority said it would add {buses} buses a day between {town} and {hq_town} once the "
    "site opens.",
    "Work on the site was delayed twice, in {delay_year} and {delay_year_2}, by disputes over who owned the land.",
    "The land was finally bought from the {family} family for {land_price} million {currency} in {land_year}.",
    "{ceo} said the first phase would be finished within {phase_months} months and the second by {finish_year}.",
    "Local schools will receive {grant},000 {currency} a year from a training fund run by {company}.",
    "{critic} said the association would decide on {decision_weekday} whether to take the council to court.",
    "Shops on {street} reported that footfall fell by {footfall}% in the year after the {site} closed.",
    "The next public hearing on the plan is set for {hearing_month} {hearing_day} at the {town} town hall.",
]
SUMMARIES = [
    "{company} will build {project} in {town} after the council approved the plan by {votes_for} votes to "
    "{votes_against}. The company will invest {investment} million {currency} and expects about {summary_jobs} jobs. "
    "{critic} of the residents' association warned that traffic on {street} could rise by {traffic}%.",
    "{town} has approved {project} by {company} on the old {site}. Chief executive {ceo} plans to invest "
    "{investment} million {currency} over {years} years, creating about {summary_jobs} jobs; {support}% of "
    "residents back the plan, but {critic} has threatened to go to court.",
]
# (question, answer, the STORY sentence that answers it)
QUESTIONS = [
    ("How many jobs is {company}'s new site in {town} expected to create?",
     "{company}'s site in {town} is expected to create about {jobs} jobs, with construction starting in "
     "{start_month} {year}.", 3),
    ("How much will {company} invest in {town}?",
     "{company} will invest {investment} million {currency} over {years} years.", 2),
    ("What share of {town} residents support the {company} plan?",
     "According to the {town} Courier, {support}% of residents support the plan and {oppose}% oppose it.", 11),
]
SOURCE_CHARS, CHUNK_CHARS, CHUNKS = 2000, 400, 5


def story_facts(rng: random.Random) -> dict:
    """One made-up story's names and numbers."""
    town, hq_town = rng.sample(TOWNS, 2)
    ceo, mayor, critic, treasurer = rng.sample(PEOPLE, 4)
    support = rng.randint(35, 70)
    jobs = rng.randint(4, 60) * 10
    delay_year = rng.randint(2015, 2020)
    return {
        "town": town, "hq_town": hq_town, "ceo": ceo, "mayor": mayor, "critic": critic, "treasurer": treasurer,
        "company": rng.choice(COMPANIES), "project": rng.choice(PROJECTS), "site": rng.choice(SITES),
        "street": rng.choice(STREETS), "river": rng.choice(RIVERS), "family": rng.choice(FAMILIES),
        "currency": rng.choice(CURRENCIES), "population": rng.randint(8, 90) * 1000 + rng.randint(0, 999),
        "votes_for": rng.randint(6, 11), "votes_against": rng.randint(1, 5), "weekday": rng.choice(WEEKDAYS),
        "decision_weekday": rng.choice(WEEKDAYS), "month": rng.choice(MONTHS), "day": rng.randint(1, 28),
        "investment": rng.randint(12, 480), "years": rng.randint(2, 9), "start_month": rng.choice(MONTHS),
        "year": rng.randint(2026, 2029), "jobs": jobs, "summary_jobs": jobs, "closure_year": rng.randint(1985, 2015),
        "traffic": rng.randint(10, 45), "signatures": rng.randint(300, 4800), "petition_weeks": rng.randint(2, 9),
        "growth": rng.randint(2, 38), "revenue": rng.randint(40, 900), "staff": rng.randint(120, 3500),
        "fee": rng.randint(50, 400), "fee_years": rng.randint(5, 20), "bridges": rng.randint(2, 6),
        "support": support, "oppose": rng.randint(10, 95 - support), "bird_species": rng.randint(20, 140),
        "trees": rng.randint(500, 9000), "path_km": rng.randint(3, 19), "buses": rng.randint(4, 30),
        "delay_year": delay_year, "delay_year_2": delay_year + rng.randint(1, 4), "land_price": rng.randint(2, 40),
        "land_year": rng.randint(2021, 2025), "phase_months": rng.randint(12, 30),
        "finish_year": rng.randint(2030, 2034),
        "grant": rng.randint(20, 150), "footfall": rng.randint(8, 40), "hearing_month": rng.choice(MONTHS),
        "hearing_day": rng.randint(1, 28),
    }


def passage(rng: random.Random, facts: dict, sentences, min_chars: int) -> str:
    """Story sentences (`sentences` are STORY indices, the first kept first, the rest shuffled) up to `min_chars`."""
    first, rest = sentences[0], list(sentences[1:])
    rng.shuffle(rest)
    text = STORY[first].format(**facts)
    for index in rest:
        if len(text) >= min_chars:
            break
        text += " " + STORY[index].format(**facts)
    return text


def summary_row(index: int) -> dict:
    rng = random.Random(f"summary-{index}")
    facts = story_facts(rng)
    if index % 3 == 2:  # every third summary gets a number wrong, so scores vary
        facts["summary_jobs"] = facts["jobs"] * 2
    source = passage(rng, facts, range(len(STORY)), SOURCE_CHARS)
    return {"summary": SUMMARIES[index % len(SUMMARIES)].format(**facts), "contexts": [source]}


def rag_row(index: int) -> dict:
    """A question about one story; its chunks: the answering passage, a passage of the same story that does not
    answer, and passages of three other stories, in a per-row order."""
    rng = random.Random(f"rag-{index}")
    facts = story_facts(rng)
    question, answer, answering = QUESTIONS[index % len(QUESTIONS)]
    others = [i for i in range(len(STORY)) if i != answering]
    chunks = [passage(rng, facts, [answering] + others, CHUNK_CHARS), passage(rng, facts, others, CHUNK_CHARS)]
    chunks += [passage(rng, story_facts(rng), range(len(STORY)), CHUNK_CHARS) for _ in range(CHUNKS - 2)]
    rng.shuffle(chunks)
    return {"question": question.format(**facts), "answer": answer.format(**facts), "contexts": chunks}


def columns(rows) -> dict:
    return {name: [row[name] for row in rows] for name in rows[0]}


# ---------------------------------------------------------------------------------------------- instruments
def max_rss_mb() -> float:
    """The process's resident-memory high-water mark (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PeakMemory:
    """Samples resident memory every 20 ms while active: `before`, `peak` and `growth` as (RSS, anonymous RSS) MB.

    Anonymous RSS leaves out file-backed pages: the judge's weights are memory-mapped and join the RSS when first
    touched (the first forward pass of a process), whatever the number of rows.
    """

    def __enter__(self):
        self._process = psutil.Process()
        self.before = self.peak = self._resident_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _resident_mb(self):
        info = self._process.memory_info()
        return info.rss / 2**20, (info.rss - info.shared) / 2**20

    def _sample(self):
        while not self._stop.wait(0.02):
            self.peak = tuple(map(max, self.peak, self._resident_mb()))

    def __exit__(self, *exc_info):
        self._stop.set()
        self._thread.join()
        self.peak = tuple(map(max, self.peak, self._resident_mb()))
        self.growth = tuple(peak - before for peak, before in zip(self.peak, self.before))

    def summary(self) -> dict:
        return {
            "rss_before_mb": self.before[0],
            "rss_peak_mb": self.peak[0],
            "rss_growth_mb": self.growth[0],
            "anon_rss_before_mb": self.before[1],
            "anon_rss_growth_mb": self.growth[1],
        }


class TokenCounter:
    """Counts what the judges' models process while active, and the time spent in them.

    Wraps each judge's `model.base_model.forward` (every transformer pass: the engine's scoring batches and their
    shared prefixes, and each step of `generate`; a shared prefix is fed, and counted, once), its output head's
    forward (logits, which the engine computes only for the scored positions) and the engine's batch runner
    `judge._run_batch` (the full length of every scored prompt, i.e. the tokens without prefix sharing). Pass the
    judge and the tuned judges its settings apply (`tuned_judges`), built before: a tuned judge's model is a copy of
    the judge's modules, and one copied while these wrappers are on would hold them, and run the judge's weights.
    """

    def __init__(self, *judges):
        self._patched = [(judge.model.base_model, judge.model.get_output_embeddings(), judge) for judge in judges]

    def __enter__(self):
        self.fed = self.padding = self.without_sharing = self.batches = self.prompts = self.forward_calls = 0
        self.head_tokens = 0
        self.forward_seconds = self.head_seconds = 0.0
        for base_model, head, judge in self._patched:
            base_model.forward, head.forward, judge._run_batch = self._counting(base_model.forward, head.forward, judge._run_batch)
        return self

    def _counting(self, forward, head_forward, run_batch):
        def counting_forward(*args, **kwargs):
            input_ids = kwargs["input_ids"] if "input_ids" in kwargs else args[0]
            mask = kwargs.get("attention_mask")
            real = int(mask[:, -input_ids.shape[1] :].sum()) if mask is not None else input_ids.numel()
            self.fed += real
            self.padding += input_ids.numel() - real
            self.forward_calls += 1
            start = time.perf_counter()
            try:
                return forward(*args, **kwargs)
            finally:
                self.forward_seconds += time.perf_counter() - start

        def counting_head(hidden):
            self.head_tokens += hidden.numel() // hidden.shape[-1]
            start = time.perf_counter()
            try:
                return head_forward(hidden)
            finally:
                self.head_seconds += time.perf_counter() - start

        def counting_run_batch(sequences, tails, batch, reduce):
            self.without_sharing += sum(len(sequences[index]) for index in batch)
            self.batches += 1
            self.prompts += len(batch)
            return run_batch(sequences, tails, batch, reduce)

        return counting_forward, counting_head, counting_run_batch

    def __exit__(self, *exc_info):
        # the wrappers are instance attributes shadowing the class methods: deleting them restores the originals
        for base_model, head, judge in self._patched:
            del base_model.forward, head.forward, judge._run_batch

    def summary(self) -> dict:
        return {
            "tokens_fed": self.fed,
            "padding_tokens": self.padding,
            "tokens_without_prefix_sharing": self.without_sharing,
            "scoring_batches": self.batches,
            "scored_prompts": self.prompts,
            "forward_calls": self.forward_calls,
            "forward_seconds": self.forward_seconds,
            "head_tokens": self.head_tokens,
            "head_seconds": self.head_seconds,
        }


def measure(judges, task) -> dict:
    """Run `task()` once: seconds, tokens of the `judges` (`TokenCounter`), memory; the task's return value under
    "result"."""
    with TokenCounter(*judges) as tokens, PeakMemory() as memory:
        start = time.perf_counter()
        result = task()
        seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        **tokens.summary(),
        **memory.summary(),
        "max_rss_after_mb": max_rss_mb(),
        "load_average_after": os.getloadavg()[0],  # the CPU may be shared: context for the timing
        "result": result,
    }


# ---------------------------------------------------------------------------------------------- phases
def tuned_judges(judge) -> list:
    """The tuned judges `judge`'s shipped settings apply (`learned.tuning.tuned_judge`, one per adapter), built now,
    before any measurement (`TokenCounter`): the metric then finds them built."""
    from localjudge.learned import tuning  # torch and peft: only where an adapter is applied

    adapters = {setting.adapter for task in DEFAULT_SETTINGS if (setting := judge_settings(judge, task)).method == "tuned"}
    return [tuning.tuned_judge(judge, adapter) for adapter in sorted(adapters)]


def load_metrics():
    return evaluate.load(str(REPO / "summarization_score")), evaluate.load(str(REPO / "context_utilization"))


def compute(metric, rows, judge, batch_size, cache, **options):
    return metric.compute(**columns(rows), judge=judge, batch_size=batch_size, cache=cache, progress=False, **options)


def forward_limit(judge, texts, repeats: int = 2) -> dict:
    """Tokens/s of a LIMIT_BATCH × LIMIT_LENGTH forward pass over the workload's text: after a 1-row warm-up, the
    fastest of `repeats` passes (on a shared CPU the fastest is the closest to what the judge can do)."""
    needed = LIMIT_BATCH * LIMIT_LENGTH
    ids = judge.tokenizer("\n\n".join(texts), add_special_tokens=False)["input_ids"]
    ids = (ids * (needed // len(ids) + 1))[:needed]  # a small workload is repeated to fill the batch
    batch = torch.tensor(ids, device=judge.device).view(LIMIT_BATCH, LIMIT_LENGTH)
    seconds = []
    with torch.inference_mode():
        judge.model.base_model(input_ids=batch[:1], use_cache=False)
        for _ in range(repeats):
            start = time.perf_counter()
            judge.model.base_model(input_ids=batch, use_cache=False)
            seconds.append(time.perf_counter() - start)
    return {"shape": [LIMIT_BATCH, LIMIT_LENGTH], "seconds": seconds, "tokens_per_s": needed / min(seconds)}


def gemm_flops_per_s(dtype, device, size: int = 2048, repeats: int = 3) -> float:
    """FLOP/s of a size × size matrix product in the judge's dtype on its device (the fastest of `repeats`): what
    this machine's matrix units can do at best, measured in the same run as the judge."""
    a, b = (torch.randn(size, size, device=device).to(dtype) for _ in range(2))
    with torch.inference_mode():
        a @ b  # warm-up
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            a @ b
            seconds.append(time.perf_counter() - start)
    return 2 * size**3 / min(seconds)


def forward_flops_per_token(model, context: int) -> float:
    """FLOPs of the transformer per token: 2 per weight of its layers (the embedding lookup is free) plus attention
    over `context` earlier tokens (scores and weighted sum: 4 · context · hidden per layer)."""
    weights = sum(p.numel() for name, p in model.base_model.named_parameters() if "embed" not in name)
    return 2 * weights + 4 * model.config.num_hidden_layers * context * model.config.hidden_size


def reference_phase(judge, summary_rows, rag_rows) -> dict:
    """The references' call pattern, row by row: Ragas and Mastra summarization, Ragas context utilization."""
    runs = {
        "ragas_summarization": (summary_rows, "ragas_summary_score", ("contexts", "summary")),
        "mastra_summarization": (summary_rows, "mastra_summary_score", ("contexts", "summary")),
        "ragas_context_utilization": (rag_rows, "context_utilization", ("question", "answer", "contexts")),
    }
    results = {}
    for name, (rows, method, fields) in runs.items():
        pipeline = ReferencePipeline(judge)
        score = getattr(pipeline, method)
        run = measure([judge], lambda: [score(*(row[field] for field in fields)) for row in rows])
        run.update(rows=len(rows), calls=pipeline.calls, parse_failures=pipeline.parse_failures,
                   generated_tokens=pipeline.generated_tokens, rows_per_s=len(rows) / run["seconds"])
        results[name] = run
        print(f"#   reference {name}: {len(rows)} rows in {run['seconds']:.1f} s, {pipeline.calls} calls, "
              f"{pipeline.parse_failures} JSON parse failures", flush=True)
    return results


def cache_phase(judges, metric, rows, batch_size) -> dict:
    """The same compute twice with the result cache on, from an empty temporary cache (for the judge and the tuned
    judges it applies, `judges`)."""
    saved = [judge.cache for judge in judges]
    with tempfile.TemporaryDirectory(prefix="localjudge-throughput-") as folder:
        for judge in judges:
            judge.cache = ResultCache(Path(folder) / "results.sqlite")
        try:
            first = measure(judges, lambda: compute(metric, rows, judges[0], batch_size, cache=True))
            second = measure(judges, lambda: compute(metric, rows, judges[0], batch_size, cache=True))
        finally:
            for judge, cache in zip(judges, saved):
                judge.cache = cache
    return {
        "first_s": first["seconds"],
        "second_s": second["seconds"],
        "speedup": first["seconds"] / second["seconds"],
        "second_run_tokens_fed": second["tokens_fed"],
        "identical_results": same(first["result"], second["result"]),
    }


def same(first: dict, second: dict) -> bool:
    # NaN scores compare equal through their JSON text
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def memory_probe(judge_name: str, dtype, batch_size, rows: int) -> dict:
    """In a fresh process: the judge's load time, then the memory growth of summarizing `rows` rows."""
    start = time.perf_counter()
    judge = load_judge(judge_name, dtype=dtype)
    load_s = time.perf_counter() - start
    summarization, _ = load_metrics()
    workload = [summary_row(index) for index in range(rows)]
    with PeakMemory() as memory:
        compute(summarization, workload, judge, batch_size, cache=False)
    return {"rows": rows, "load_s": load_s, **memory.summary()}


def in_fresh_process(function, *args):
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as executor:
        return executor.submit(function, *args).result()


def benchmark(name: str, args) -> dict:
    summary_rows = [summary_row(index) for index in range(args.summary_rows)]
    rag_rows = [rag_row(index) for index in range(args.rag_rows)]
    start = time.perf_counter()
    judge = load_judge(name, dtype=args.dtype)
    report = {"judge": repr(judge), "load_in_process_s": time.perf_counter() - start}
    report["max_rss_after_load_mb"] = max_rss_mb()
    start = time.perf_counter()
    judges = [judge, *tuned_judges(judge)]
    report["tuned_judges_build_s"], report["tuned_judges"] = time.perf_counter() - start, len(judges) - 1
    summarization, utilization = load_metrics()
    metrics = {"summarization": (summarization, summary_rows), "context_utilization": (utilization, rag_rows)}

    print(f"# {name}: ours, cache off", flush=True)
    for metric_name, (metric, rows) in metrics.items():
        run = measure(judges, lambda: compute(metric, rows, judge, args.batch_size, cache=False))
        run.update(rows=len(rows), rows_per_s=len(rows) / run["seconds"], parse_failures=0)
        report[f"ours_{metric_name}"] = run

    if args.skip_reference:
        report["reference"] = None
    else:
        print(f"# {name}: reference call pattern on {args.reference_rows} rows", flush=True)
        first = args.reference_rows
        report["reference"] = reference_phase(judge, summary_rows[:first], rag_rows[:first])

    print(f"# {name}: forward-pass limit", flush=True)
    texts = [row["contexts"][0] for row in summary_rows] + [chunk for row in rag_rows for chunk in row["contexts"]]
    report["limit"] = forward_limit(judge, texts)
    # the physical ceiling: the GEMM rate of this machine ÷ the judge's FLOPs per token (attention over half the
    # limit pass's length, its mean context)
    report["gemm_flops_per_s"] = gemm_flops_per_s(judge.model.dtype, judge.device)
    report["judge_dtype"] = str(judge.model.dtype).replace("torch.", "")
    report["flops_per_token"] = forward_flops_per_token(judge.model, LIMIT_LENGTH // 2)
    report["max_rss_after_limit_mb"] = max_rss_mb()

    print(f"# {name}: result cache, two identical runs", flush=True)
    for metric_name, (metric, rows) in metrics.items():
        report[f"cache_{metric_name}"] = cache_phase(judges, metric, rows, args.batch_size)
    report["max_rss_after_cache_mb"] = max_rss_mb()

    sizes = sorted({max(1, args.summary_rows // 4), args.summary_rows})
    print(f"# {name}: fresh processes, summarization over {' and '.join(map(str, sizes))} rows", flush=True)
    report["fresh_process"] = [
        in_fresh_process(memory_probe, name, args.dtype, args.batch_size, rows) for rows in sizes
    ]
    for metric_name in metrics:
        del report[f"ours_{metric_name}"]["result"]  # scores are not benchmark output
    for run in (report["reference"] or {}).values():
        del run["result"]
    return report


def served_benchmark(name: str, args) -> dict:
    """Rows/s of both metrics in this process and through the server at `args.server`, on the same rows."""
    local, served = load_judge(name, dtype=args.dtype), load_judge(args.server)
    if served.name != local.name:
        print(f"# WARNING: the server serves {served.name!r}, not {local.name!r}: not the same checkpoint?")
    summarization, utilization = load_metrics()
    workloads = {
        "summarization": (summarization, [summary_row(index) for index in range(args.summary_rows)]),
        "context_utilization": (utilization, [rag_row(index) for index in range(args.rag_rows)]),
    }
    settings = {"alignment": TUNED_ALIGNMENT} if args.tuned else None
    report = {"judge": repr(local), "served": repr(served), "settings": settings_label(served, settings)}
    for metric_name, (metric, rows) in workloads.items():
        runs = {}
        for label, judge, batch_size in (("in_process", local, args.batch_size), ("served", served, args.server_batch_size)):
            print(f"# {metric_name}: {label}, {len(rows)} rows, cache off", flush=True)
            start = time.perf_counter()
            result = compute(metric, rows, judge, batch_size, cache=False, settings=settings)
            seconds = time.perf_counter() - start
            runs[label] = {"seconds": seconds, "rows_per_s": len(rows) / seconds, "scores": result["scores"],
                           "num_failed": result["num_failed"], "load_average_after": os.getloadavg()[0]}
        differences = [abs(a - b) for a, b in zip(runs["in_process"]["scores"], runs["served"]["scores"])]
        report[metric_name] = {**runs, "rows": len(rows), "max_score_difference": max(differences),
                               "served_speedup": runs["served"]["rows_per_s"] / runs["in_process"]["rows_per_s"]}
    return report


# the verdict the tuned one is timed against: the likelihood verdict a judge gives without its adapter
LIKELIHOOD = "likelihood (ALIGNMENT_Q10)"


def timed_variants(judge, judges, metric, rows, variants: dict, args) -> dict:
    """{label: run} of each variant of `metric` (label → its compute options) on `rows` in this process, cache off:
    all warmed up untimed on the first row (the first passes of a process are slower), then each timed
    `args.repeats` times in turn, the faster kept; rows/s also as a share of the first variant's."""
    for options in variants.values():
        compute(metric, rows[:1], judge, args.batch_size, cache=False, **options)
    runs = {}
    for repeat in range(args.repeats):
        for label, options in variants.items():
            print(f"# {label}, {len(rows)} rows, cache off (run {repeat + 1} of {args.repeats})", flush=True)
            with TokenCounter(*judges) as tokens:
                start = time.perf_counter()
                result = compute(metric, rows, judge, args.batch_size, cache=False, **options)
                seconds = time.perf_counter() - start
            run = runs.setdefault(label, {"seconds": [], "result": result})
            run["seconds"].append(seconds)
            run["tokens_fed"] = tokens.fed
            run["judgements"] = tokens.prompts
            run["load_average_after"] = os.getloadavg()[0]
    first = len(rows) / min(next(iter(runs.values()))["seconds"])
    for run in runs.values():
        run["rows_per_s"] = len(rows) / min(run["seconds"])
        run["of_first"] = run["rows_per_s"] / first
    return runs


def tuned_benchmark(name: str, args) -> dict:
    """Rows/s of summarization_score with the tuned alignment verdict (every window, and each claim's top K) against
    the judge's likelihood verdict (`verdicts.stateless_setting`), on the same rows in this process, cache off."""
    from localjudge.learned import tuning  # torch and peft: only where an adapter is applied

    judge = load_judge(name, dtype=args.dtype)
    summarization, _ = load_metrics()
    rows = [summary_row(index) for index in range(args.summary_rows)]
    tuned = TUNED_ALIGNMENTS[judge.settings_key]
    start = time.perf_counter()
    adapted = tuning.tuned_judge(judge, tuned.adapter)
    report = {"judge": repr(judge), "rows": len(rows), "build_s": time.perf_counter() - start}
    verdicts = {LIKELIHOOD: {"settings": {"alignment": stateless_setting(judge, "alignment")}}}
    for count in dict.fromkeys(args.compare_tuned or [0, tuned.top_windows]):
        label = f"tuned, top {count} windows" if count else "tuned, every window"
        verdicts[label] = {"settings": {"alignment": tuned._replace(top_windows=count)}}
    report["verdicts"] = timed_variants(judge, [judge, adapted], summarization, rows, verdicts, args)
    every = report["verdicts"].get("tuned, every window", {}).get("result")
    for label, run in report["verdicts"].items():
        run["alignment_scores"] = run.pop("result")["alignment_scores"]
        if every is not None and label != LIKELIHOOD:
            run["alignment_differs_from_every_window"] = sum(a != b for a, b in zip(run["alignment_scores"], every["alignment_scores"]))
    return report


def questions_benchmark(name: str, args) -> dict:
    """Rows/s of summarization_score asking each source `max_questions` = N sentences (0: the default, by the kind of
    source, `keyfacts.question_count`), on the same rows in this process, cache off; the judge's shipped verdicts."""
    judge = load_judge(name, dtype=args.dtype)
    judges = [judge, *tuned_judges(judge)]
    summarization, _ = load_metrics()
    rows = [summary_row(index) for index in range(args.summary_rows)]
    variants = {f"max_questions={count or None}": {"max_questions": count or None, "return_details": True} for count in args.compare_questions}
    runs = timed_variants(judge, judges, summarization, rows, variants, args)
    for run in runs.values():
        run["questions_per_row"] = sum(len(detail["questions"]) for detail in run.pop("result")["details"]) / len(rows)
    return {"judge": repr(judge), "rows": len(rows), "variants": runs}


def print_tuned_table(report: dict):
    print(f"\n## {report['judge']}: summarization_score, {report['rows']} rows, cache off, tuned alignment verdict against "
          f"the likelihood one (tuned judge built once: {report['build_s']:.1f} s, not timed)\n")
    print("| alignment verdict | rows/s | ÷ likelihood | judge tokens per row | scored prompts per row | seconds, each run | "
          "rows whose alignment differs from every window |")
    print("|---|---|---|---|---|---|---|")
    for label, run in report["verdicts"].items():
        runs = " / ".join(f"{seconds:.1f}" for seconds in run["seconds"])
        differs = run.get("alignment_differs_from_every_window")
        print(f"| {label} | {cell(run['rows_per_s'], 'rate')} | {run['of_first']:.2f}× | "
              f"{cell(run['tokens_fed'] / report['rows'], 'n')} | {cell(run['judgements'] / report['rows'], 'n')} | {runs} | "
              f"{'–' if differs is None else differs} |")
    print("\n* context_utilization runs no tuned verdict (claims only): its rows/s is the same with either alignment verdict")


def print_questions_table(report: dict):
    first = next(iter(report["variants"]))
    print(f"\n## {report['judge']}: summarization_score, {report['rows']} rows, cache off, questions asked per source\n")
    print(f"| questions | rows/s | ÷ {first} | questions per row | judge tokens per row | seconds, each run |")
    print("|---|---|---|---|---|---|")
    for label, run in report["variants"].items():
        runs = " / ".join(f"{seconds:.1f}" for seconds in run["seconds"])
        print(f"| {label} | {cell(run['rows_per_s'], 'rate')} | {run['of_first']:.2f}× | {run['questions_per_row']:.1f} | "
              f"{cell(run['tokens_fed'] / report['rows'], 'n')} | {runs} |")


def print_served_table(report: dict):
    metric_names = ("summarization", "context_utilization")
    lines = [
        ("rows", lambda run: cell(run["rows"], "n")),
        ("in-process: rows/s (cache off)", lambda run: cell(run["in_process"]["rows_per_s"], "rate")),
        ("served: rows/s (cache off)", lambda run: cell(run["served"]["rows_per_s"], "rate")),
        ("served ÷ in-process", lambda run: cell(run["served_speedup"], "x")),
        ("in-process / served: seconds", lambda run: f"{run['in_process']['seconds']:.1f} / {run['served']['seconds']:.1f}"),
        ("largest |Δ score| between the two", lambda run: f"{run['max_score_difference']:.3f}"),
        ("failed rows, served", lambda run: cell(run["served"]["num_failed"], "n")),
    ]
    print(f"\n## {report['judge']} against {report['served']} (verdict settings {report['settings']})\n")
    print("| measure | summarization_score | context_utilization |")
    print("|---|---|---|")
    for label, show in lines:
        print(f"| {label} | {' | '.join(show(report[metric_name]) for metric_name in metric_names)} |")


# ---------------------------------------------------------------------------------------------- report
def ratio(numerator, denominator):
    return numerator / denominator if numerator is not None and denominator else None


def derived(report: dict) -> dict:
    """The per-metric figures of the table, from the raw measurements."""
    reference = report["reference"]
    figures = {}
    for metric_name, reference_names in (
        ("summarization", ["ragas_summarization", "mastra_summarization"]),
        ("context_utilization", ["ragas_context_utilization"]),
    ):
        ours, cache = report[f"ours_{metric_name}"], report[f"cache_{metric_name}"]
        rows = ours["rows"]
        row = {
            "rows": rows,
            "ours_rows_per_s": ours["rows_per_s"],
            "tokens_per_row": ours["tokens_fed"] / rows,
            "tokens_per_row_without_sharing": ours["tokens_without_prefix_sharing"] / rows,
            "padding_per_row": ours["padding_tokens"] / rows,
            "ours_tokens_per_s": ours["tokens_fed"] / ours["seconds"],
            "transformer_share": ours["forward_seconds"] / ours["seconds"],
            "head_share": ours["head_seconds"] / ours["seconds"],
            "other_share": 1 - (ours["forward_seconds"] + ours["head_seconds"]) / ours["seconds"],
            "limit_tokens_per_s": report["limit"]["tokens_per_s"],
            "cache_first_s": cache["first_s"],
            "cache_second_s": cache["second_s"],
            "cache_speedup": cache["speedup"],
            "rss_growth_mb": ours["rss_growth_mb"],
            "anon_rss_growth_mb": ours["anon_rss_growth_mb"],
        }
        row["fraction_of_limit"] = row["ours_tokens_per_s"] / row["limit_tokens_per_s"]
        row["ceiling_tokens_per_s"] = report["gemm_flops_per_s"] / report["flops_per_token"]
        row["fraction_of_ceiling"] = row["ours_tokens_per_s"] / row["ceiling_tokens_per_s"]
        row["limit_fraction_of_ceiling"] = row["limit_tokens_per_s"] / row["ceiling_tokens_per_s"]
        if reference:
            runs = [reference[name] for name in reference_names]
            row["reference_rows"] = runs[0]["rows"]
            row["reference_rows_per_s"] = runs[0]["rows_per_s"]
            row["reference_calls"] = sum(run["calls"] for run in runs)
            row["reference_parse_failures"] = sum(run["parse_failures"] for run in runs)
            if len(runs) > 1:  # Ragas + Mastra: the outputs ours gives in one pass
                row["reference_all_rows_per_s"] = runs[0]["rows"] / sum(run["seconds"] for run in runs)
        row["speedup_vs_reference"] = ratio(row["ours_rows_per_s"], row.get("reference_rows_per_s"))
        row["speedup_vs_reference_all"] = ratio(row["ours_rows_per_s"], row.get("reference_all_rows_per_s"))
        figures[metric_name] = row
    return figures


def cell(value, style: str) -> str:
    if value is None:
        return "–"
    return {"rate": f"{value:.3g}", "x": f"{value:.1f}×", "%": f"{100 * value:.0f} %", "n": f"{value:,.0f}",
            "s": f"{value:.2f}", "mb": f"{value:+,.0f}"}[style].replace(",", " ")


def print_table(report: dict, figures: dict):
    reference_rows = figures["summarization"].get("reference_rows")
    reference_label = f"first {reference_rows} rows" if reference_rows else "skipped"
    shape = "×".join(map(str, report["limit"]["shape"]))
    passes = len(report["limit"]["seconds"])
    lines = [
        ("rows", "rows", "n", None),
        ("ours: rows/s (cache off)", "ours_rows_per_s", "rate", None),
        (f"reference: rows/s (Ragas, {reference_label})", "reference_rows_per_s", "rate", None),
        ("reference: rows/s (Ragas + Mastra, the outputs ours gives)", "reference_all_rows_per_s", "rate", None),
        ("ours ÷ reference (Ragas)", "speedup_vs_reference", "x", f"≥ {TARGETS['reference']:g}×"),
        ("ours ÷ reference (Ragas + Mastra)", "speedup_vs_reference_all", "x", f"≥ {TARGETS['reference']:g}×"),
        ("reference: generation calls", "reference_calls", "n", None),
        ("reference: JSON parse failures (ours: 0, no JSON)", "reference_parse_failures", "n", None),
        ("judge tokens per row, fed (shared prefix once)", "tokens_per_row", "n", None),
        ("judge tokens per row without prefix sharing", "tokens_per_row_without_sharing", "n", None),
        ("padding tokens per row", "padding_per_row", "n", None),
        ("ours: judge tokens/s during compute", "ours_tokens_per_s", "rate", None),
        ("compute time share: transformer forward passes", "transformer_share", "%", None),
        ("compute time share: output head (scored positions only)", "head_share", "%", None),
        ("compute time share: everything else", "other_share", "%", None),
        (f"limit: tokens/s of a {shape} forward pass (best of {passes})", "limit_tokens_per_s", "rate", None),
        ("ours ÷ limit", "fraction_of_limit", "%", f"≥ {100 * TARGETS['limit']:.0f} %"),
        ("ceiling: tokens/s = GEMM FLOP/s ÷ judge FLOPs per token", "ceiling_tokens_per_s", "rate", None),
        ("ours ÷ ceiling", "fraction_of_ceiling", "%", None),
        ("limit ÷ ceiling", "limit_fraction_of_ceiling", "%", None),
        ("cache on: 1st run s", "cache_first_s", "s", None),
        ("cache on: 2nd identical run s", "cache_second_s", "s", None),
        ("2nd-run speed-up", "cache_speedup", "x", f"≥ {TARGETS['cache']:g}×"),
        ("peak RSS growth during compute, MB", "rss_growth_mb", "mb", None),
        ("peak anonymous RSS growth during compute, MB", "anon_rss_growth_mb", "mb", None),
    ]
    print(f"\n## {report['judge']}\n")
    print("| measure | summarization_score | context_utilization | target |")
    print("|---|---|---|---|")
    for label, key, style, target in lines:
        cells = [cell(figures[metric_name].get(key), style) for metric_name in ("summarization", "context_utilization")]
        print(f"| {label} | {' | '.join(cells)} | {target or ''} |")
    probes = report["fresh_process"]
    growth = " vs ".join(
        f"{probe['rows']} rows: {probe['rss_growth_mb']:+.0f} MB RSS, {probe['anon_rss_growth_mb']:+.0f} MB anonymous"
        for probe in probes
    )
    print(f"\n* judge load: {report['load_in_process_s']:.2f} s in this process; in fresh processes (warm model cache) "
          f"{statistics.median(probe['load_s'] for probe in probes):.2f} s (median of {len(probes)})")
    if report["tuned_judges"]:
        print(f"* the tuned judge its settings apply: built in {report['tuned_judges_build_s']:.2f} s before the timing "
              "(in the fresh processes, inside it)")
    print(f"* memory flatness, summarization's peak memory growth in a fresh process, {growth}; "
          f"target: no growth with rows (RSS includes the weights, memory-mapped and paged in by the first pass)")
    print(f"* ceiling: a 2048×2048 {report['judge_dtype']} matrix product ran at {report['gemm_flops_per_s'] / 1e12:.3f} TFLOP/s; "
          f"the judge needs {report['flops_per_token'] / 1e9:.2f} GFLOP per token")
    print(f"* process peak RSS (ru_maxrss) after load / ours + reference + limit / cache runs: "
          f"{report['max_rss_after_load_mb']:.0f} / {report['max_rss_after_limit_mb']:.0f} / "
          f"{report['max_rss_after_cache_mb']:.0f} MB")
    for metric_name in ("summarization", "context_utilization"):
        if not report[f"cache_{metric_name}"]["identical_results"]:
            print(f"* WARNING: {metric_name}: the cached second run returned different results")


def environment() -> dict:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "evaluate": evaluate.__version__,
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.cuda.is_available(),
        "load_average_at_start": os.getloadavg()[0],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", nargs="+", default=list(EMBEDDED_JUDGES), help="judge names or paths")
    parser.add_argument("--summary-rows", type=int, default=32)
    parser.add_argument("--rag-rows", type=int, default=32)
    parser.add_argument("--dtype", choices=["float32", "bfloat16"],
                        help="default: the engine's (bf16 on a GPU and on CPUs that compute it, fp32 elsewhere)")
    parser.add_argument("--batch-size", type=int, help="prompts per forward pass for ours (default: the judge's)")
    parser.add_argument("--skip-reference", action="store_true", help="skip the slow reference call pattern")
    parser.add_argument("--reference-rows", type=int, default=4, help="rows the reference pattern runs on")
    parser.add_argument("--server", metavar="URL", help="compare with the judge served at URL (phase 6 only)")
    parser.add_argument("--server-batch-size", type=int, help="requests in flight to the server (default: the judge's)")
    parser.add_argument("--tuned", action="store_true", help="phase 6: summary claims get the tuned verdict (an adapter)")
    parser.add_argument("--compare-tuned", type=int, nargs="*", metavar="K",
                        help="phase 7 only: summarization with the tuned verdict, each claim against its top K windows (0: "
                             "every window; default: 0 and the shipped K), against the likelihood verdict")
    parser.add_argument("--compare-questions", type=int, nargs="+", metavar="N",
                        help="phase 8 only: summarization asking N source sentences (max_questions; 0: the default)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="phases 7 and 8: timed runs of each variant, in turn (the faster kept)")
    parser.add_argument("--json", help="also write every measurement to this JSON file")
    args = parser.parse_args()

    env = environment()
    print("# " + ", ".join(f"{key} {value}" for key, value in env.items()), flush=True)
    results = []
    for name in args.judge:
        if args.compare_questions:
            report = questions_benchmark(name, args)
            print_questions_table(report)
        elif args.compare_tuned is not None:
            report = tuned_benchmark(name, args)
            print_tuned_table(report)
        elif args.server:
            report = served_benchmark(name, args)
            print_served_table(report)
        else:
            report = benchmark(name, args)
            report["figures"] = derived(report)
            print_table(report, report["figures"])
        results.append(report)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"environment": env, "arguments": vars(args), "judges": results}, handle, indent=2)


if __name__ == "__main__":
    main()
