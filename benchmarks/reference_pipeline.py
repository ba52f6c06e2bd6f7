"""The reference implementations' call pattern on a localjudge judge, as the baseline of `throughput.py`.

Ragas and Mastra judge by GENERATING JSON: one sequential call per step, one row at a time, the output parsed
with `json.loads`. This module replays that pattern with the same judge object as localjudge's metrics, so the
benchmark compares pipelines, not models:

* Ragas SummarizationScore (`ragas/metrics/_summarization.py`): keyphrases → questions → answers, 3 calls per row.
* Mastra SummarizationMetric (legacy `packages/evals/src/metrics/llm/summarization/`): claims → alignment
  verdicts, questions → answers, 4 calls per row (the 5th call, the generated reason, is left out).
* Ragas context utilization (`ragas/metrics/_context_precision.py`): one verification call per chunk.

The prompts below are the references' own text (Ragas: instruction, JSON schema, few-shot examples and input
as JSON, assembled like `PydanticPrompt.to_string`; Mastra: its template literals, the agent's instructions as
the system message). Generation is greedy with at most `MAX_NEW_TOKENS` tokens per call, batch size 1 and no
result cache. Where the references re-prompt the judge to repair unparsable JSON, this baseline only counts the
failure and goes on with an empty answer, so it is, if anything, faster than the references.
"""

import json
import math
from string import Template

from localjudge import maths

MAX_NEW_TOKENS = 256

APPLE = (
    "Apple Inc. is a technology company based in Cupertino, California. Founded by Steve Jobs in 1976, it reached "
    "a market capitalization of $3 trillion in 2023."
)
APPLE_KEYPHRASES = ["Apple Inc.", "Cupertino, California", "Steve Jobs", "1976", "$3 trillion", "2023"]
APPLE_QUESTIONS = [
    "Is Apple Inc. a technology company?",
    "Is Apple Inc. based in Cupertino, California?",
    "Was Apple Inc. founded by Steve Jobs?",
    "Was Apple Inc. founded in 1976?",
    "Did Apple Inc. reach a market capitalization of $3 trillion?",
    "Did Apple Inc. reach a market capitalization of $3 trillion in 2023?",
]


def _string_list_schema(title: str, field: str) -> dict:
    """The JSON schema pydantic writes for a model with one `List[str]` field."""
    return {
        "properties": {field: {"items": {"type": "string"}, "title": field.capitalize(), "type": "array"}},
        "required": [field],
        "title": title,
        "type": "object",
    }


# Ragas PydanticPrompts: instruction, output schema (`model_json_schema()`), few-shot (input, output) pairs.
# The output key is what the parser must find in the judge's JSON.
RAGAS_PROMPTS = {
    "keyphrases": {
        "instruction": (
            "Extract keyphrases of type: Person, Organization, Location, Date/Time, Monetary Values, and Percentages."
        ),
        "schema": _string_list_schema("ExtractedKeyphrases", "keyphrases"),
        "examples": [({"text": APPLE}, {"keyphrases": APPLE_KEYPHRASES})],
        "output_key": "keyphrases",
    },
    "questions": {
        "instruction": (
            "Based on the given text and keyphrases, generate closed-ended questions that can be answered with '1' "
            "if the question can be answered using the text, or '0' if it cannot. The questions should ALWAYS "
            "result in a '1' based on the given text."
        ),
        "schema": _string_list_schema("QuestionsGenerated", "questions"),
        "examples": [({"text": APPLE, "keyphrases": APPLE_KEYPHRASES}, {"questions": APPLE_QUESTIONS})],
        "output_key": "questions",
    },
    "answers": {
        "instruction": (
            "Based on the list of close-ended '1' or '0' questions, generate a JSON with key 'answers', which is a "
            "list of strings that determines whether the provided summary contains sufficient information to "
            "answer EACH question. Answers should STRICTLY be either '1' or '0'. Answer '0' if the provided summary "
            "does not contain enough information to answer the question and answer '1' if the provided summary can "
            "answer the question."
        ),
        "schema": _string_list_schema("AnswersGenerated", "answers"),
        "examples": [
            (
                {
                    "summary": APPLE,
                    "questions": APPLE_QUESTIONS
                    + [
                        "Is Apple Inc. a major software company?",
                        "Is Apple Inc. known for the iPhone?",
                        "Was Steve Jobs the co-founder of Apple Inc.?",
                    ],
                },
                {"answers": ["1", "1", "1", "1", "1", "1", "0", "0", "1"]},
            )
        ],
        "output_key": "answers",
    },
    "context_utilization": {
        "instruction": (
            "Given question, answer and context verify if the context was useful in arriving at the given answer. "
            'Give verdict as "1" if useful and "0" if not with json output.'
        ),
        "schema": {
            "properties": {
                "reason": {"description": "Reason for verification", "title": "Reason", "type": "string"},
                "verdict": {
                    "description": "Binary (0/1) verdict of verification",
                    "title": "Verdict",
                    "type": "integer",
                },
            },
            "required": ["reason", "verdict"],
            "title": "Verification",
            "type": "object",
        },
        "examples": [
            (
                {
                    "question": "What can you tell me about Albert Einstein?",
                    "context": (
                        "Albert Einstein (14 March 1879 – 18 April 1955) was a German-born theoretical physicist, "
                        "widely held to be one of the greatest and most influential scientists of all time. Best known "
                        "for developing the theory of relativity, he also made important contributions to quantum "
                        "mechanics, and was thus a central figure in the revolutionary reshaping of the scientific "
                        "understanding of nature that modern physics accomplished in the first decades of the "
                        "twentieth century. His mass–energy equivalence formula E = mc2, which arises from relativity "
                        "theory, has been called 'the world's most famous equation'. He received the 1921 Nobel Prize "
                        "in Physics 'for his services to theoretical physics, and especially for his discovery of the "
                        "law of the photoelectric effect', a pivotal step in the development of quantum theory. His "
                        "work is also known for its influence on the philosophy of science. In a 1999 poll of 130 "
                        "leading physicists worldwide by the British journal Physics World, Einstein was ranked the "
                        "greatest physicist of all time. His intellectual achievements and originality have made "
                        "Einstein synonymous with genius."
                    ),
                    "answer": (
                        "Albert Einstein, born on 14 March 1879, was a German-born theoretical physicist, widely held "
                        "to be one of the greatest and most influential scientists of all time. He received the 1921 "
                        "Nobel Prize in Physics for his services to theoretical physics."
                    ),
                },
                {
                    "reason": (
                        "The provided context was indeed useful in arriving at the given answer. The context includes "
                        "key information about Albert Einstein's life and contributions, which are reflected in the "
                        "answer."
                    ),
                    "verdict": 1,
                },
            ),
            (
                {
                    "question": "who won 2020 icc world cup?",
                    "context": (
                        "The 2022 ICC Men's T20 World Cup, held from October 16 to November 13, 2022, in Australia, "
                        "was the eighth edition of the tournament. Originally scheduled for 2020, it was postponed due "
                        "to the COVID-19 pandemic. England emerged victorious, defeating Pakistan by five wickets in "
                        "the final to clinch their second ICC Men's T20 World Cup title."
                    ),
                    "answer": "England",
                },
                {
                    "reason": (
                        "the context was useful in clarifying the situation regarding the 2020 ICC World Cup and "
                        "indicating that England was the winner of the tournament that was intended to be held in 2020 "
                        "but actually took place in 2022."
                    ),
                    "verdict": 1,
                },
            ),
            (
                {
                    "question": "What is the tallest mountain in the world?",
                    "context": (
                        "The Andes is the longest continental mountain range in the world, located in South America. "
                        "It stretches across seven countries and features many of the highest peaks in the Western "
                        "Hemisphere. The range is known for its diverse ecosystems, including the high-altitude Andean "
                        "Plateau and the Amazon rainforest."
                    ),
                    "answer": "Mount Everest.",
                },
                {
                    "reason": (
                        "the provided context discusses the Andes mountain range, which, while impressive, does not "
                        "include Mount Everest or directly relate to the question about the world's tallest mountain."
                    ),
                    "verdict": 0,
                },
            ),
        ],
        "output_key": "verdict",
    },
}

# Mastra's agent instructions (its system message) and prompt template literals, `${name}` placeholders kept.
MASTRA_SYSTEM = """
You are a strict and thorough summarization evaluator. Your job is to determine if LLM-generated summaries are factually correct and contain necessary details from the original text.

Key Principles:
1. Be EXTRA STRICT in evaluating factual correctness and coverage.
2. Only give a "yes" verdict if a statement is COMPLETELY supported by the original text.
3. Give "no" if the statement contradicts or deviates from the original text.
4. Focus on both factual accuracy and coverage of key information.
5. Exact details matter - approximations or generalizations count as deviations.
"""

MASTRA_PROMPTS = {
    # faithfulness/prompts.ts generateClaimExtractionPrompt, reused by the summarization judge
    "claims": """Extract all claims from the given output. A claim is any statement that asserts information, including both factual and speculative assertions.

Guidelines for claim extraction:
- Break down compound statements into individual claims
- Include all statements that assert information
- Include both definitive and speculative claims (using words like may, might, could)
- Extract specific details like numbers, dates, and quantities
- Keep relationships between entities
- Include predictions and possibilities
- Extract claims with their full context
- Exclude only questions and commands

Example:
Text: "The Tesla Model S was launched in 2012 and has a range of 405 miles. The car can accelerate from 0 to 60 mph in 1.99 seconds. I think it might be the best electric car ever made and could receive major updates next year."

{
    "claims": [
        "The Tesla Model S was launched in 2012",
        "The Tesla Model S has a range of 405 miles",
        "The Tesla Model S can accelerate from 0 to 60 mph in 1.99 seconds",
        "The Tesla Model S might be the best electric car ever made",
        "The Tesla Model S could receive major updates next year"
    ]
}
Note: All assertions are included, even speculative ones, as they need to be verified against the context.

Please return only JSON format with "claims" array.
Return empty list for empty input.

Text:
${output}

JSON:
""",
    "alignment": """
    For the provided list of summary claims, determine whether each statement is factually correct and supported by the original text.
    Make sure to judge each statement independently. Do not let statements influence each other.
    Generate a list of verdicts in JSON format, where each verdict must have:
    - "claim": The original claim being evaluated
    - "verdict": Strictly "yes", "no", or "unsure"
    - "reason": Always provide a reason explaining your verdict

    Be EXTRA STRICT in your evaluation:
    - Give "yes" if the statement is COMPLETELY supported by the original text
    - Give "no" if the statement contradicts the original text
    - Give "unsure" if the statement cannot be verified from the original text
    - Allow for approximate language if directionally correct (e.g., "around 1995" for "1995")

    The number of verdicts MUST MATCH the number of claims exactly.

    Example:
    Original Text: "The company was founded in 1995 by John Smith. It started with 10 employees and grew to 500 by 2020. The company is based in Seattle."
    Summary Claims: [
      "The company was established around 1995",
      "The company has thousands of employees",
      "The founder was John Smith",
      "The business might be doing well in the Pacific Northwest"
      "The company is growing rapidly"
    ]
    {
      "verdicts": [
        {
          "claim": "The company was established around 1995",
          "verdict": "yes",
          "reason": "The founding year is correctly stated with acceptable approximation ('around 1995' matches '1995')"
        },
        {
          "claim": "The company has thousands of employees",
          "verdict": "no",
          "reason": "The original text states 500 employees, which contradicts thousands"
        },
        {
          "claim": "The founder was John Smith",
          "verdict": "yes",
          "reason": "The founder John Smith is correctly identified from the original text"
        },
        {
          "claim": "The business might be doing well in the Pacific Northwest",
          "verdict": "unsure",
          "reason": "While the location (Pacific Northwest/Seattle) is correct, the business performance claim cannot be verified from the original text"
        },
        {
          "claim": "The company is growing rapidly",
          "verdict": "no",
          "reason": "The original text does not mention growth or a specific rate of growth"
        }
      ]
    }

    Original Text:
    ${originalText}

    Summary Claims:
    ${summaryClaims}

    JSON:
  """,
    "questions": """
    Given the input text, generate yes/no questions to verify if key information is preserved in a summary. Follow these rules:

    Key requirements:
    - Questions MUST be answerable as STRICTLY 'yes' based on the original text
    - Each question must be verifiable with ONLY the information in the text
    - Focus on important facts and main points
    - Questions should be specific and unambiguous
    - No questions that could be interpreted as "maybe" or "partially"

    Example:
    Original Text: "The company was founded in 1995 by John Smith. It started with 10 employees and grew to 500 by 2020. The company is based in Seattle."
    {
      "questions": [
        "Was the company founded in 1995?",
        "Was John Smith the founder?",
        "Did it start with 10 employees?",
        "Did it grow to 500 employees by 2020?",
        "Is the company based in Seattle?"
      ]
    }

    Original Text:
    ${originalText}

    JSON:
  """,
    "answers": """
    Based on the given summary, determine if each question can be answered with STRICTLY 'yes' or 'no'.
    Make sure to judge each question independently. Do not let questions influence each other.

    Be STRICT in your evaluation:
    - Give "yes" if the summary provides enough information to definitively answer the question
    - Give "no" if the summary lacks the necessary information or provides contradicting information
    - Each answer must be based ONLY on the information in the summary
    
    Matching guidelines:
    Facts:
    - Locations must be treated equally when referring to the same place:
        - "founded in X" = "based in X" = "located in X"
        - "headquarters in X" = "located in X"
    - Dates and numbers must match exactly: "2020" ≠ "about 2020"
    - Names and proper nouns must match exactly: "ABC Corp" ≠ "ABC Company"

    Technical Content:
    - Domain terms must match exactly:
        - Scientific concepts: "quantum supremacy" ≠ "quantum advantage"
        - Industry standards: "ISO 9001 certified" ≠ "quality certified"
        - Technical metrics: "99.99% uptime" ≠ "high availability"
    - Technical achievements allow semantic equivalence:
        - "revolutionary quantum computing" = "breakthroughs in quantum computing"
        - "developed AI system" = "created AI solution"
        - "new technology" ≠ "revolutionary technology"

    General Concepts:
    - Allow semantically equivalent phrases: "developed technology" = "made breakthroughs"
    - Reject weaker/stronger claims: "became successful" ≠ "dominated the market"
    - Reject generalizations: "made progress" ≠ "achieved specific milestone"

    Time & Progression:
    - Temporal patterns must match exactly: "steadily growing" ≠ "continues to grow"
    - Future references must match exactly: "next year" ≠ "future plans"
    - Durations must match exactly: "for 5 years" ≠ "for several years"

    Example 1:
    Original Text: "Company Y was established in Boston in 2015. Their first ML model achieved 95% accuracy. The company relocated to Seattle in 2018."
    Summary: "Company Y, founded in Boston in 2015 and later moved to Seattle, developed an ML model with 95% accuracy."
    Questions: [
    "Was Company Y founded in Boston?",
    "Was the company founded in 2015?",
    "Did their ML model achieve 95% accuracy?",
    "Did they move to Seattle?",
    "Did they move in 2018?"
    ]
    {
    "answers": ["yes", "yes", "yes", "yes", "yes"]
    }


    Example 2:
    Original Text: "Company X created revolutionary machine learning solutions in 2020. Their AI model achieved 99% accuracy on benchmarks and processed data 5x faster than competitors. The team grew from 50 to 200 engineers."
    Summary: "In 2020, Company X made breakthroughs in ML technology. Their AI reached 99% accuracy and had 5x speed improvements. Team size increased to about 200 people."
    Questions: [
    "Did Company X create revolutionary ML solutions in 2020?",
    "Did their AI model achieve 99% accuracy?",
    "Was their solution 5x faster than competitors?",
    "Did the team grow to exactly 200 engineers?",
    "Did they start with 50 engineers?"
    ]
    {
    "answers": ["yes", "yes", "yes", "no", "no"]
    }

    Original Text:
    ${originalText}

    Summary:
    ${summary}

    Questions:
    ${questions}

    JSON:
  """,
}
MASTRA_OUTPUT_KEYS = {"claims": "claims", "alignment": "verdicts", "questions": "questions", "answers": "answers"}


def ragas_prompt(task: str, data: dict) -> str:
    """The prompt string Ragas' `PydanticPrompt.to_string(data)` builds for `task`."""
    prompt = RAGAS_PROMPTS[task]
    examples = "\n\n".join(
        f"Example {number}\nInput: {json.dumps(given, indent=4, ensure_ascii=False)}\n"
        f"Output: {json.dumps(expected, indent=4, ensure_ascii=False)}"
        for number, (given, expected) in enumerate(prompt["examples"], start=1)
    )
    return (
        f"{prompt['instruction']}\n"
        "Please return the output in a JSON format that complies with the following schema as specified in JSON "
        f"Schema:\n{json.dumps(prompt['schema'])}Do not use single quotes in your response but double quotes,"
        "properly escaped with a backslash.\n"
        f"\n--------EXAMPLES-----------\n{examples}"
        "\n-----------------------------\n"
        "\nNow perform the same with the following input\n"
        f"input: {json.dumps(data, indent=4, ensure_ascii=False)}\n"
        "Output: "
    )


def parse_json_field(generation: str, key: str):
    """`key` of the first JSON object in `generation` (Ragas' `extract_json` + `json.loads`), or None."""
    start = generation.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(generation[start:])
    except ValueError:
        return None
    return value.get(key) if isinstance(value, dict) else None


# Output validation as the references' schemas do it (pydantic / zod): the valid value, or None.
def _string_list(value):
    return value if isinstance(value, list) and all(isinstance(item, str) for item in value) else None


def _verdict_list(value):
    if isinstance(value, list) and all(isinstance(item, dict) and isinstance(item.get("verdict"), str) for item in value):
        return value
    return None


def _binary(value):
    # pydantic's lax `int` accepts 1 and "1"
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _js_array(items) -> str:
    """`JSON.stringify(items)`: compact JSON, as Mastra inserts lists into its prompts."""
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)


class ReferencePipeline:
    """Runs the references' calls one at a time on `judge`, counting calls and outputs that fail to parse."""

    def __init__(self, judge):
        self.judge = judge
        self.calls = 0
        self.parse_failures = 0
        self.generated_tokens = 0

    def _call(self, prompt: str, key: str, validate, system: str = None):
        rendered = self.judge.render(prompt, system=system)
        [generation] = self.judge.generate(
            [rendered], max_new_tokens=MAX_NEW_TOKENS, batch_size=1, cache=False, progress=False
        )
        self.calls += 1
        self.generated_tokens += self.judge.count_tokens(generation)
        value = validate(parse_json_field(generation, key))
        self.parse_failures += value is None
        return value

    def _ragas(self, task: str, data: dict, validate=_string_list):
        return self._call(ragas_prompt(task, data), RAGAS_PROMPTS[task]["output_key"], validate)

    def _mastra(self, task: str, validate=_string_list, **fields):
        prompt = Template(MASTRA_PROMPTS[task]).substitute(fields)
        return self._call(prompt, MASTRA_OUTPUT_KEYS[task], validate, system=MASTRA_SYSTEM)

    def ragas_summary_score(self, contexts, summary: str) -> float:
        """Ragas SummarizationScore of one row (length penalty on, coeff 0.5); NaN where Ragas divides by zero."""
        text = "\n".join(contexts)
        keyphrases = self._ragas("keyphrases", {"text": text}) or []
        questions = self._ragas("questions", {"text": text, "keyphrases": keyphrases}) or []
        answers = self._ragas("answers", {"summary": summary, "questions": questions}) or []
        if not answers:
            return math.nan
        qa_score = sum(answer.lower() == "1" for answer in answers) / len(answers)
        return maths.ragas_summary_score(qa_score, maths.conciseness_score(summary, text))

    def mastra_summary_score(self, contexts, summary: str) -> float:
        """Mastra SummarizationMetric of one row: min(alignment, coverage), each the share of "yes" verdicts."""
        text = "\n".join(contexts)
        claims = self._mastra("claims", output=summary) or []
        verdicts = self._mastra("alignment", _verdict_list, originalText=text, summaryClaims=_js_array(claims)) or []
        questions = self._mastra("questions", originalText=text) or []
        answers = self._mastra("answers", originalText=text, summary=summary, questions=_js_array(questions)) or []

        def share_yes(labels, total):
            return sum(label.strip().lower() == "yes" for label in labels) / total if total else 0.0

        alignment = share_yes([verdict["verdict"] for verdict in verdicts], len(verdicts))
        # Mastra reads answers[i] for every question; a missing answer counts as not "yes" here instead of throwing
        coverage = share_yes(answers[: len(questions)], len(questions))
        return maths.min_score(alignment, coverage)

    def context_utilization(self, question: str, answer: str, contexts) -> float:
        """Ragas context utilization of one row: a verification call per chunk, average precision with 1e-10."""
        verdicts = []
        for chunk in contexts:
            fields = {"question": question, "context": chunk, "answer": answer}
            verdict = self._ragas("context_utilization", fields, _binary)
            verdicts.append(1 if verdict else 0)
        return maths.average_precision(verdicts, maths.RAGAS_EPSILON)
