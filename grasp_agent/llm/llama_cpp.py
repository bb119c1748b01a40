"""In-process llama.cpp over a GGUF file, through llama-cpp-python (the `local-llm` extra).

Prompts are rendered with the chat template stored in the GGUF and tokenized here, so that generation and
`first_token_logprobs` see exactly the same prompt. JSON-schema output goes through a GBNF grammar from
llama-cpp-python's schema converter (long length bounds dropped, see `grammar_schema`), checked once by
llama.cpp's own parser and cached per schema. Decoding is greedy unless a temperature is given.

First-token log-probabilities are exact over the whole vocabulary: the prompt is evaluated once and the
last position's logits are read from the context. llama-cpp-python's own `logprobs` option would need
`logits_all=True`, which keeps n_ctx x vocabulary floats (about 2.5 GB for Qwen at 4096 tokens) and computes
the output layer for every prompt token.

Building llama-cpp-python: a default (GGML_NATIVE) build on a VM that advertises AMX but traps it dies with
SIGILL (`tilezero`) on the first multi-token decode. There, build without native flags:
`CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" pip install llama-cpp-python`.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from neo4j_graphrag.types import LLMMessage

from grasp_agent.llm.base import (
    ChatResult,
    GenerationOptions,
    GraspLLM,
    OutputConstraint,
    check_candidates,
    check_messages,
    merge_token_logprobs,
)
from grasp_agent.llm.errors import LLMError, ModelFileError
from grasp_agent.llm.packaged_models import check_gguf_magic
from grasp_agent.optional_imports import require

# Measured with Plan on the 0.5B model: bound 2000 is refused by llama.cpp; keeping 500 parses but makes
# constrained decoding about 4x slower than bound 64, since every nested optional rule is tracked per token.
GRAMMAR_MAX_LENGTH = 64
# Saved context states of recent prompt prefixes (~50 MB each for a 0.5B model at 4096 tokens).
PREFIX_STATES = 4
MIN_CACHED_PREFIX = 64  # shorter prefixes are cheaper to evaluate than to restore
SEEN_PREFIXES = 256  # prefixes remembered (by hash) to tell the shared ones from those of one call
INSTALL_HINT = "pip install 'grasp-agent[local-llm]' (the [local-llm] extra installs llama-cpp-python)"


def _import_llama_cpp() -> Any:
    return require(
        "llama_cpp", need="the llama-cpp backend needs llama-cpp-python", hint=INSTALL_HINT, error_type=LLMError
    )


def grammar_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` without string length bounds above GRAMMAR_MAX_LENGTH.

    The converter unrolls `maxLength: n` into n nested optional rules; llama.cpp refuses Plan's
    `relevance_text` bound of 2000 outright, and long bounds slow every decoding step. Callers validate the
    parsed JSON (e.g. `parse_plan`), and max_tokens bounds the output anyway, so a dropped bound loses no safety.
    """

    def bounded(node: Any) -> Any:
        if isinstance(node, Mapping):
            copy = {key: bounded(value) for key, value in node.items()}
            if isinstance(copy.get("maxLength"), int) and copy["maxLength"] > GRAMMAR_MAX_LENGTH:
                del copy["maxLength"]
            return copy
        return [bounded(item) for item in node] if isinstance(node, list) else node

    return dict(bounded(schema))


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits.astype(np.float64) - float(np.max(logits))
    return shifted - float(np.log(np.exp(shifted).sum()))


class LlamaCppLLM(GraspLLM):
    """A GGUF model loaded in this process. Calls are serialized: one llama.cpp context is not thread-safe."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        context_tokens: int = 4096,
        threads: int | None = None,
        max_tokens: int = 512,  # a plan takes ~100 tokens; a CPU should not spend minutes on a runaway answer
        verbose: bool = False,
    ) -> None:
        path = Path(model_path)
        super().__init__(model_name=path.stem)
        llama_cpp = _import_llama_cpp()
        if not path.is_file():
            raise ModelFileError(f"GGUF file {path} does not exist; allowed: an existing .gguf file")
        check_gguf_magic(path)
        if context_tokens < 256 or max_tokens < 1 or (threads is not None and threads < 1):
            raise LLMError(
                f"context_tokens {context_tokens}, max_tokens {max_tokens}, threads {threads} refused; "
                "allowed: context_tokens >= 256, max_tokens >= 1, threads >= 1 or None"
            )
        self._llama_cpp = llama_cpp
        self._path = path
        self._max_tokens = max_tokens
        try:
            self._llama = llama_cpp.Llama(
                model_path=str(path), n_ctx=context_tokens, n_threads=threads, logits_all=False, verbose=verbose
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelFileError(f"llama.cpp could not load {path}: {exc}") from exc
        self._formatter = self._chat_formatter(add_generation_prompt=True)
        self._prefix_formatter = self._chat_formatter(add_generation_prompt=False)
        self._prefix_states: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._seen_prefixes: OrderedDict[int, None] = OrderedDict()
        self._grammars: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"llama-cpp:{self._path.stem}"

    @property
    def metadata(self) -> dict[str, str]:
        """The GGUF's key/value metadata (a trained planner carries `grasp.planner.prompt`)."""
        return dict(self._llama.metadata)

    def _chat_formatter(self, add_generation_prompt: bool) -> Any:
        template = self._llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelFileError(
                f"{self._path} has no tokenizer.chat_template in its metadata; "
                "allowed: instruction-tuned GGUFs that carry their chat template"
            )

        def token_text(token: int) -> str:
            return self._llama.detokenize([token], special=True).decode("utf-8", "replace") if token >= 0 else ""

        chat_format = self._llama_cpp.llama_chat_format
        return chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=token_text(self._llama.token_eos()),
            bos_token=token_text(self._llama.token_bos()),
            add_generation_prompt=add_generation_prompt,
        )

    def _prompt_tokens(self, messages: list[LLMMessage], reserve: int) -> list[int]:
        rendered = self._formatter(messages=messages)
        tokens: list[int] = self._llama.tokenize(
            rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
        )
        if len(tokens) + reserve > self._llama.n_ctx():
            raise LLMError(
                f"prompt of {len(tokens)} tokens plus {reserve} to generate exceeds the context of "
                f"{self._llama.n_ctx()} tokens; allowed: a shorter prompt or a larger llm_context_tokens"
            )
        return tokens

    def _start_from_prefix(self, messages: list[LLMMessage], tokens: list[int]) -> None:
        """Puts the context at the state after every message but the last, evaluated one message at a time from
        the longest saved state of such a prefix.

        The planner and the judge send the same long prefix with every question (system prompt, fixed
        demonstrations); evaluating it once and restoring its saved state cuts prefill by ~85%. Some of the
        prefix may be the question's own (extraction demonstrations picked for it), so every message boundary
        is a candidate: the longest one with a saved state is restored, and the longest one an earlier call also
        sent is saved, so prefixes of one call never take a slot. Answers stay independent of call order: the
        prefix is always evaluated in the same pieces (one per message, from the same states), whether a piece
        was restored or computed, whereas evaluating it in other batch shapes shifts logits enough to change
        greedy answers.
        """
        self._llama.reset()
        boundaries: list[tuple[int, ...]] = []  # token prefixes at message boundaries, shortest first
        for end in range(1, len(messages)):
            rendered = self._prefix_formatter(messages=messages[:end])
            prefix = self._llama.tokenize(
                rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
            )
            if len(prefix) > (len(boundaries[-1]) if boundaries else 0) and tokens[: len(prefix)] == prefix:
                boundaries.append(tuple(prefix))
        seen = [self._seen_before(key) for key in boundaries]
        # the longest prefix an earlier call shared is worth a state; the shorter ones inside it are not
        shared = max((i for i, key in enumerate(boundaries) if seen[i] and len(key) >= MIN_CACHED_PREFIX), default=-1)
        restored = max((i for i, key in enumerate(boundaries) if key in self._prefix_states), default=-1)
        if restored >= 0:
            self._prefix_states.move_to_end(boundaries[restored])
            self._llama.load_state(self._prefix_states[boundaries[restored]])
        for i in range(restored + 1, len(boundaries)):
            self._llama.eval(list(boundaries[i][self._llama.n_tokens :]))
            if i == shared:
                self._prefix_states[boundaries[i]] = self._llama.save_state()
                while len(self._prefix_states) > PREFIX_STATES:
                    self._prefix_states.popitem(last=False)

    def _seen_before(self, key: tuple[int, ...]) -> bool:
        """Whether this prefix came in an earlier call (remembered by hash, the last SEEN_PREFIXES of them)."""
        digest = hash(key)
        if digest in self._seen_prefixes:
            self._seen_prefixes.move_to_end(digest)
            return True
        self._seen_prefixes[digest] = None
        while len(self._seen_prefixes) > SEEN_PREFIXES:
            self._seen_prefixes.popitem(last=False)
        return False

    def _grammar(self, constraint: OutputConstraint) -> Any:
        """The (cached) grammar for `constraint`; None for free text."""
        if constraint.kind == "text":
            return None
        grammars = self._llama_cpp.llama_grammar
        key = "json" if constraint.kind == "json" else json.dumps(constraint.schema, sort_keys=True)
        if key not in self._grammars:
            if constraint.kind == "json":
                gbnf = grammars.JSON_GBNF
            else:
                try:
                    gbnf = grammars.json_schema_to_gbnf(json.dumps(grammar_schema(constraint.schema or {})))
                except (ValueError, KeyError, TypeError, NotImplementedError) as exc:
                    raise LLMError(
                        f"llama.cpp cannot turn JSON schema {constraint.name!r} into a grammar: "
                        f"{type(exc).__name__}: {exc}; allowed: schemas its converter supports"
                    ) from exc
            self._check_grammar(gbnf, constraint.name)
            self._grammars[key] = grammars.LlamaGrammar.from_string(gbnf, verbose=False)
        return self._grammars[key]

    def _check_grammar(self, gbnf: str, name: str) -> None:
        # llama-cpp-python hands a refused grammar (a NULL sampler) on to the sampler chain, which takes the
        # process down; parsing it once here turns that into an error.
        vocab = self._llama_cpp.llama_model_get_vocab(self._llama.model)
        sampler = self._llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not sampler:
            raise LLMError(
                f"llama.cpp refused the grammar for schema {name!r} ({len(gbnf)} characters of GBNF; "
                "its parser printed why on stderr); allowed: smaller schemas, fewer length bounds"
            )
        self._llama_cpp.llama_sampler_free(sampler)

    def _chat(self, messages: list[LLMMessage], constraint: OutputConstraint, options: GenerationOptions) -> ChatResult:
        max_tokens = options.max_tokens or self._max_tokens
        with self._lock:
            tokens = self._prompt_tokens(messages, max_tokens)
            grammar = self._grammar(constraint)
            self._start_from_prefix(messages, tokens)  # create_completion evaluates only what follows
            # temperature 0 selects llama.cpp's greedy sampler; the seed only matters above 0.
            output = self._llama.create_completion(
                prompt=tokens,
                max_tokens=max_tokens,
                temperature=options.temperature,
                seed=options.seed,
                grammar=grammar,
            )
        return _parse_completion(output, self._path)

    def first_token_logprobs(self, messages: Sequence[LLMMessage], candidates: Sequence[str]) -> dict[str, float]:
        wanted = check_candidates(candidates)
        checked = check_messages(messages)
        with self._lock:
            tokens = self._prompt_tokens(checked, 1)
            self._start_from_prefix(checked, tokens)
            self._llama.eval(tokens[self._llama.n_tokens :])
            pointer = self._llama_cpp.llama_get_logits_ith(self._llama.ctx, -1)
            logits = np.ctypeslib.as_array(pointer, shape=(self._llama.n_vocab(),)).copy()
            spellings = self._first_token_spellings(wanted)
        logprobs = log_softmax(logits)
        return merge_token_logprobs(((text, float(logprobs[token])) for token, text in spellings.items()), wanted)

    def _first_token_spellings(self, candidates: Sequence[str]) -> dict[int, str]:
        """Token id -> text of the first token of each candidate, bare and after a space ("yes", " yes")."""
        spellings: dict[int, str] = {}
        for candidate in candidates:
            for variant in (candidate, " " + candidate):
                ids = self._llama.tokenize(variant.encode("utf-8"), add_bos=False, special=False)
                if ids:
                    spellings[ids[0]] = self._llama.detokenize([ids[0]]).decode("utf-8", "replace")
        return spellings

    def close(self) -> None:
        with self._lock:
            self._llama.close()


def _parse_completion(output: Mapping[str, Any], path: Path) -> ChatResult:
    try:
        text = output["choices"][0]["text"]
        usage = output.get("usage") or {}
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"llama.cpp returned no choices[0].text for {path}: {output!r:.300}") from exc
    return ChatResult(
        text=text, prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens")
    )
