"""The judges: one file per backend over a small shared interface, and a registry that turns a name into a judge.

Imports run one way: `registry` (names, files, hub ids and addresses → a judge; the embedded judges as data)
imports a backend only when a judge of its kind is loaded, `local` (transformers, in this process) or `served`
(a vLLM server's OpenAI-compatible API); both build on `base.BaseJudge` and use `files` (fingerprints).
"""
