"""One interface over a transformers model and a user's forward: full forwards, incremental
decoding with the model's own cache, and the re-runs the explanations need.

A user's callable ``forward(input_ids, position_ids=None, attention_mask=None,
past_key_values=None)`` returns logits (a tensor), an object with ``.logits`` or a pair
``(logits, past_key_values)``; on the first decoding call it receives an empty transformers
``DynamicCache`` (which it may fill in place, or replace by the cache it returns).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InvalidParameter
from .build import ModelInfo

__all__ = ["CallableRunner", "HFRunner", "Runner", "layer_table", "text_config_of"]


def text_config_of(config: Any) -> Any:
    get = getattr(config, "get_text_config", None)
    try:
        return get(decoder=True) if get is not None else config
    except (TypeError, ValueError, AttributeError):
        return config


def layer_table(config: Any) -> list[dict[str, Any]]:
    """Each decoder layer's attention as transformers builds it: ``full``, ``sliding`` (its
    window) or ``chunked``, and its rotary base when bases differ per layer type (Gemma 3's
    local 10000 / global 10^6).  Read from the config object transformers built (its
    ``layer_types``; a ``sliding_window`` without them applies to every layer, as Mistral's
    mask does), not from the JSON."""
    text = text_config_of(config)
    n = getattr(text, "num_hidden_layers", None) or getattr(text, "num_decoder_layers", None) \
        or getattr(text, "num_layers", None)
    if not isinstance(n, int) or n < 1:
        return []
    window = getattr(text, "sliding_window", None)
    types = getattr(text, "layer_types", None)
    local = getattr(text, "attention_layers", None)          # GPT-Neo: "global" / "local"
    if types is None and isinstance(local, (list, tuple)) and getattr(text, "window_size", None):
        window = text.window_size
        types = ["sliding_attention" if t == "local" else "full_attention" for t in local]
    if not isinstance(types, (list, tuple)) or len(types) < n:
        on = bool(window) and getattr(text, "use_sliding_window", True) is not False
        types = ["sliding_attention" if on else "full_attention"] * n
    rope = getattr(text, "rope_parameters", None)
    per_type = isinstance(rope, dict) and any(isinstance(v, dict) for v in rope.values())
    out = []
    for i, kind in enumerate(types[:n]):
        row: dict[str, Any] = {"layer": i, "attention": str(kind).replace("_attention", "")}
        if kind == "sliding_attention" and window:
            row["window"] = int(window)
        elif kind == "chunked_attention" and getattr(text, "attention_chunk_size", None):
            row["window"] = int(text.attention_chunk_size)
        if per_type and isinstance(rope.get(kind), dict) and "rope_theta" in rope[kind]:
            row["rope_theta"] = float(rope[kind]["rope_theta"])
        out.append(row)
    return out


@contextlib.contextmanager
def _patched(patches: list[tuple[Any, str, Any]], value: Any = True) -> Iterator[Any]:
    """Within the block each ``(owner, attribute, replacement)`` is set; yields ``value``; every
    original is put back afterwards, in reverse order (whatever the block raised)."""
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, new in patches:
        setattr(owner, name, new)
    try:
        yield value
    finally:
        for owner, name, old in reversed(saved):
            setattr(owner, name, old)


def _logits_of(out: Any) -> tuple[Any, Any]:
    if isinstance(out, tuple) and len(out) == 2 and not hasattr(out, "logits"):
        return out[0], out[1]
    if hasattr(out, "logits"):
        keys = out.keys() if hasattr(out, "keys") else ()
        cache = next((out[k] for k in ("cache", "past_key_values") if k in keys), None)
        return out.logits, cache
    return out, None


class Runner:
    """What the checks need of a model."""

    info: ModelInfo
    vocab: int
    takes_positions: bool = True
    #: Per decoder layer: attention kind, window, rotary base (:func:`layer_table`); empty
    #: when unknown (a user's forward).
    layers: list[dict[str, Any]]
    #: The rotated and the head dimension when only part of each head rotates, else None.
    partial: tuple[int, int] | None = None

    def forward(self, ids: Any, position_ids: Any = None, attention_mask: Any = None,
                cache: Any = None) -> tuple[Any, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def reset(self) -> None:
        """Forget any state a previous call left (HF's dynamic RoPE caches its frequencies)."""

    def logits(self, ids: Any, position_ids: Any = None, attention_mask: Any = None) -> Any:
        import torch

        self.reset()
        with torch.no_grad():
            return self.forward(ids, position_ids, attention_mask)[0]

    def decode(self, ids: Any, prompt: int, positions: str = "own") -> Any:
        """Logits rows prompt … T−1 of ``ids`` (1, T): a prefill of ``prompt`` tokens, then one
        token at a time through the model's cache.  ``positions="own"`` lets the model derive
        positions (``position_ids=None``), ``"explicit"`` passes the true ones."""
        import torch

        self.reset()
        rows = []
        with torch.no_grad():
            pos = torch.arange(prompt)[None] if positions == "explicit" else None
            _, cache = self.forward(ids[:, :prompt], pos, None, self.new_cache())
            for i in range(prompt, ids.shape[1]):
                pos = torch.tensor([[i]]) if positions == "explicit" else None
                logits, new = self.forward(ids[:, i:i + 1], pos, None, cache)
                cache = new if new is not None else cache
                rows.append(logits[0, -1])
        return torch.stack(rows)

    def new_cache(self) -> Any:
        from transformers import DynamicCache

        return DynamicCache()

    _float64 = False

    @contextlib.contextmanager
    def float64_angles(self) -> Iterator[bool]:
        """Within the block every float32 step of the model's forward runs in float64.

        HF models compute parts in float32 even in a float64 model: the rotary angles
        (``position_ids.float() * inv_freq``), RMSNorm / T5 LayerNorm (``.to(torch.float32)``),
        the eager softmax (``softmax(..., dtype=torch.float32)``).  Their rounding (~1e−8)
        would drown the float64 comparisons, so during each forward ``Tensor.float()`` gives
        float64, ``Tensor.to(float32 | float16 | bfloat16)`` of a float64 tensor keeps float64,
        and so does ``softmax(dtype=float32)``.  The frequencies θ a rule computes from
        integers (``arange(...).to(torch.float)``) stay as the model computes them.
        """
        with _patched([(self, "_float64", True)]):
            yield True

    @contextlib.contextmanager
    def _precision(self) -> Iterator[None]:
        import torch

        if not self._float64:
            yield
            return
        low = (torch.float32, torch.float16, torch.bfloat16)
        to = torch.Tensor.to

        def to64(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if tensor.dtype == torch.float64:
                args = tuple(torch.float64 if isinstance(a, torch.dtype) and a in low else a
                             for a in args)
                if args and isinstance(args[0], torch.Tensor) and args[0].dtype in low:
                    args = (args[0].device, torch.float64, *args[1:])
                if kwargs.get("dtype") in low:
                    kwargs["dtype"] = torch.float64
            return to(tensor, *args, **kwargs)

        functional = torch.nn.functional
        softmax = functional.softmax

        def softmax64(x: Any, *args: Any, **kwargs: Any) -> Any:
            if x.dtype == torch.float64 and kwargs.get("dtype") in low:
                kwargs["dtype"] = torch.float64
            return softmax(x, *args, **kwargs)

        with _patched([(torch.Tensor, "float", torch.Tensor.double), (torch.Tensor, "to", to64),
                       (functional, "softmax", softmax64)], None):
            yield


    @contextlib.contextmanager
    def frequencies_by_position(self, prompt: int) -> Iterator[bool]:
        """Position p rotated with the frequencies of length max(p + 1, prompt), as a dynamic
        rule applies them through a cache (yields False when not possible)."""
        yield False

    @contextlib.contextmanager
    def frequencies_at(self, length: int) -> Iterator[bool]:
        """Every position rotated with the frequencies of sequence length ``length``."""
        yield False


def _partial(config: Any, rotaries: list[Any]) -> tuple[int, int] | None:
    """``(rotated dims, head dim)`` when the model rotates only part of each head: the rotated
    width is twice the rotary module's frequency count (what transformers computed from
    partial_rotary_factor / rotary_pct / rotary_dim)."""
    text = text_config_of(config)
    heads = getattr(text, "num_attention_heads", None)
    hidden = getattr(text, "hidden_size", None)
    head = getattr(text, "head_dim", None) or (hidden // heads if hidden and heads else None)
    nope, rope = (getattr(text, k, None) for k in ("qk_nope_head_dim", "qk_rope_head_dim"))
    if isinstance(nope, int) and isinstance(rope, int):      # MLA: cat(q_nope, q_rope)
        head = nope + rope
    widths = {2 * int(b.shape[-1]) for m in rotaries for k, b in m.named_buffers(recurse=False)
              if k.endswith("inv_freq") and "original" not in k}
    if not widths and isinstance(getattr(text, "rotary_dim", None), int):
        widths = {int(text.rotary_dim)}                       # GPT-J: no rotary module
    if not head or len(widths) != 1:
        return None
    (rotated,) = widths
    return (rotated, int(head)) if rotated < int(head) else None


class CallableRunner(Runner):
    """A user's ``forward(input_ids, position_ids=None, attention_mask=None,
    past_key_values=None)`` returning logits."""

    def __init__(self, fn: Callable[..., Any], *, vocab: int, info: ModelInfo) -> None:
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            raise InvalidParameter("the forward given is not a callable with a signature; "
                                   "pass forward(input_ids, position_ids=None, "
                                   "attention_mask=None, past_key_values=None)") from None
        var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
        for name in ("position_ids", "attention_mask", "past_key_values"):
            if name not in params and not var_kw:
                raise InvalidParameter(
                    f"the forward {getattr(fn, '__name__', fn)!r} takes no {name}; check-model "
                    "needs forward(input_ids, position_ids=None, attention_mask=None, "
                    "past_key_values=None) returning logits")
        self.fn, self.vocab, self.info = fn, int(vocab), info
        self.layers = []

    def forward(self, ids: Any, position_ids: Any = None, attention_mask: Any = None,
                cache: Any = None) -> tuple[Any, Any]:
        import torch

        with self._precision():
            out = self.fn(ids, position_ids=position_ids, attention_mask=attention_mask,
                          past_key_values=cache)
        logits, new = _logits_of(out)
        logits = torch.as_tensor(logits)
        if logits.ndim != 3 or logits.shape[:2] != ids.shape:
            raise InvalidParameter(f"the forward returned logits of shape {tuple(logits.shape)} "
                                   f"for input_ids of shape {tuple(ids.shape)}; it must return "
                                   "(batch, seq, vocab)")
        return logits.to(torch.float64), new if new is not None else cache


class HFRunner(Runner):
    """A transformers model (causal LM, Qwen2-VL on text tokens, or T5 on its decoder side)."""

    def __init__(self, model: Any, info: ModelInfo, *, seed: int = 0) -> None:
        import torch

        self.model, self.info = model, info
        self.config = model.config
        text = getattr(self.config, "text_config", None) or self.config
        self.vocab = int(getattr(text, "vocab_size", None) or self.config.vocab_size)
        params = inspect.signature(model.forward).parameters
        self.encoder_decoder = bool(getattr(self.config, "is_encoder_decoder", False))
        # an encoder-decoder model's positions are its decoder's (Whisper: decoder_position_ids)
        self.position_kw = "decoder_position_ids" if self.encoder_decoder and \
            "decoder_position_ids" in params else "position_ids"
        self.takes_positions = self.position_kw in params
        self.cache_kw = "cache" if "cache" in params else "past_key_values"
        if not self.takes_positions and info.family not in ("alibi", "t5", "absolute"):
            raise InvalidParameter(f"{type(model).__name__}.forward takes no position_ids; "
                                   "check-model needs a model whose positions can be passed")
        if self.encoder_decoder:
            target = getattr(self.config, "max_target_positions", None)
            if info.context is None and isinstance(target, int):
                info.context = target                      # Whisper: the decoder's table
            gen = torch.Generator().manual_seed(seed + 1)
            self.encoder_kw = getattr(model, "main_input_name", "input_ids")
            if self.encoder_kw == "input_features":        # Whisper: log-mel frames
                frames = 2 * int(getattr(self.config, "max_source_positions", 4))
                bins = int(getattr(self.config, "num_mel_bins", 8))
                self.encoder_ids = torch.randn(1, bins, frames, generator=gen,
                                               dtype=torch.float64)
            else:
                self.encoder_kw = "input_ids"
                self.encoder_ids = torch.randint(1, max(2, self.vocab - 12), (1, 8),
                                                 generator=gen)
        self.rotaries = [m for m in model.modules()
                         if "Rotary" in type(m).__name__ and "Vision" not in type(m).__name__
                         and any(k.endswith("inv_freq") for k, _ in m.named_buffers())]
        # every frequency buffer (Gemma 3 keeps one per layer type: sliding_attention_inv_freq)
        self._state = [(m, {k: b.clone() for k, b in m.named_buffers(recurse=False)
                            if k.endswith("inv_freq") and "original" not in k},
                        getattr(m, "max_seq_len_cached", None),
                        {k: v for k, v in vars(m).items() if k.endswith("attention_scaling")})
                       for m in self.rotaries]
        self.layers = layer_table(self.config)
        self.partial = _partial(self.config, self.rotaries)

    def reset(self) -> None:
        for m, buffers, cached, scaling in self._state:
            for name in [k for k in vars(m) if k.endswith("long_inv_freq")]:
                delattr(m, name)
            for name, inv in buffers.items():
                m.register_buffer(name, inv.clone(), persistent=False)
            if cached is not None:
                m.max_seq_len_cached = cached
            for name, value in scaling.items():
                setattr(m, name, value)

    def new_cache(self) -> Any:
        if self.encoder_decoder:
            return None
        from transformers import DynamicCache

        return DynamicCache(config=self.config)

    def forward(self, ids: Any, position_ids: Any = None, attention_mask: Any = None,
                cache: Any = None) -> tuple[Any, Any]:
        kwargs: dict[str, Any] = {"use_cache": cache is not None or self._decoding}
        if cache is not None:
            kwargs[self.cache_kw] = cache
        if position_ids is not None and self.takes_positions:
            kwargs[self.position_kw] = position_ids
        with self._precision():
            if self.encoder_decoder:
                out = self.model(decoder_input_ids=ids, decoder_attention_mask=attention_mask,
                                 encoder_outputs=self._encoded(ids.shape[0]), **kwargs)
            else:
                out = self.model(input_ids=ids, attention_mask=attention_mask, **kwargs)
        return _logits_of(out)

    def _encoded(self, batch: int) -> Any:
        """The encoder's output on its fixed input, for a decoder batch of ``batch`` rows:
        computed once per batch size, dtype and precision mode and passed to every decoder
        forward as ``encoder_outputs`` (as ``generate()`` does; the encoder input never changes,
        so re-running the encoder each call — 1500 frames for Whisper — gives the same)."""
        dtype = next(self.model.parameters()).dtype
        key = (batch, dtype, self._float64)
        memo = self.__dict__.setdefault("_encoder_memo", {})
        if key not in memo:
            import torch

            enc = self.encoder_ids.expand(batch, *self.encoder_ids.shape[1:])
            if enc.is_floating_point():              # features: in the model's dtype
                enc = enc.to(dtype)
            with torch.no_grad():
                memo[key] = self.model.get_encoder()(**{self.encoder_kw: enc})
        return memo[key]

    _decoding = False

    def decode(self, ids: Any, prompt: int, positions: str = "own") -> Any:
        self._decoding = True
        try:
            return super().decode(ids, prompt, positions)
        finally:
            self._decoding = False

    def _standard(self) -> bool:
        """Every rotary module is Llama's (cat(freqs, freqs), rotate_half) with a HF rule."""
        return bool(self.rotaries) and self.info.family == "rope" and all(
            hasattr(m, "config") and hasattr(m, "attention_scaling") for m in self.rotaries)

    def _inv_freq(self, module: Any, length: int) -> tuple[Any, float]:
        from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

        kind = module.rope_type
        if kind == "default" or length <= (self.info.original_max or 0):
            return module.original_inv_freq, module.attention_scaling
        # a tensor length, as the model's own update passes it (max(position_ids) + 1): the
        # rule's arithmetic then runs in the same dtypes, to the last bit
        import torch

        return ROPE_INIT_FUNCTIONS[kind](module.config, module.inv_freq.device,
                                         seq_len=torch.tensor(length))

    @contextlib.contextmanager
    def _by_position(self, length_of: Callable[[Any], Any]) -> Iterator[bool]:
        import torch

        if not self._standard():
            yield False
            return

        def make(module: Any) -> Callable[..., Any]:
            def forward(x: Any, position_ids: Any) -> Any:
                pos = position_ids.to(torch.float64)
                lengths = length_of(position_ids)
                freqs = torch.empty(*pos.shape, module.inv_freq.shape[-1], dtype=torch.float64)
                scale = torch.empty(*pos.shape, 1, dtype=torch.float64)
                for s in torch.unique(lengths).tolist():
                    inv, att = self._inv_freq(module, int(s))
                    where = lengths == s
                    # θ as the model stores it (LongRoPE copies into its float32 buffer)
                    stored = torch.empty_like(module.inv_freq).copy_(inv).double()
                    freqs[where] = pos[where][:, None] * stored
                    scale[where] = float(att)
                emb = torch.cat((freqs, freqs), dim=-1)
                return (emb.cos() * scale).to(x.dtype), (emb.sin() * scale).to(x.dtype)
            return forward

        with _patched([(m, "forward", make(m)) for m in self.rotaries]):
            yield True

    @contextlib.contextmanager
    def attention_inputs(self) -> Iterator[list[tuple[Any, Any]] | None]:
        """Within the block, the (query, key) each eager attention call receives — after the
        rotation — are appended to the yielded list, in call order (layer 0 first); yields
        ``None`` when the model's attention does not go through its module's
        ``eager_attention_forward``."""
        import sys

        modules = {sys.modules.get(type(m).__module__) for m in self.model.modules()
                   if "Attention" in type(m).__name__}
        modules = {m for m in modules if m is not None and hasattr(m, "eager_attention_forward")}
        if not modules:
            yield None
            return
        seen: list[tuple[Any, Any]] = []

        def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
            def eager(module: Any, query: Any, key: Any, *args: Any, **kwargs: Any) -> Any:
                seen.append((query.detach().clone(), key.detach().clone()))
                return fn(module, query, key, *args, **kwargs)
            return eager

        with _patched([(m, "eager_attention_forward", wrap(m.eager_attention_forward))
                       for m in modules], seen):
            yield seen

    @contextlib.contextmanager
    def windows_as(self, sliding: bool) -> Iterator[bool]:
        """Within the block every layer gets the sliding-window mask (``sliding=True``, the
        window of the local layers) or the full causal one (``False``); nothing else changes
        (Gemma 3's layers keep their own bases).  The model's modules call transformers'
        ``create_causal_mask`` / ``create_sliding_window_causal_mask`` by name: those names are
        swapped.  Yields False when the model has no window or no such names."""
        import sys

        text = text_config_of(self.config)
        if not getattr(text, "sliding_window", None) or \
                not any(row.get("window") for row in self.layers):
            yield False
            return
        names = ("create_causal_mask", "create_sliding_window_causal_mask")
        modules = {sys.modules.get(type(m).__module__) for m in self.model.modules()}
        modules = {m for m in modules if m is not None and all(hasattr(m, n) for n in names)}
        if not modules:
            yield False
            return
        with _patched([(m, "create_causal_mask", m.create_sliding_window_causal_mask)
                       if sliding else
                       (m, "create_sliding_window_causal_mask", m.create_causal_mask)
                       for m in modules]):
            yield True

    @contextlib.contextmanager
    def table_offset(self, offset: int) -> Iterator[bool]:
        """Within the block the learned position table of the decoder reads row p + offset
        for position p (its rows moved up by ``offset``): a model that counts pads as positions,
        made explicit.  Yields False when no position table is found."""
        import torch

        text = text_config_of(self.config)
        names = ("wpe", "embed_positions", "position_embeddings")
        tables = [m for name, m in self.model.named_modules()
                  if isinstance(m, torch.nn.Embedding) and name.split(".")[-1] in names
                  and "encoder" not in name]
        if not tables or offset < 1 or (getattr(text, "is_encoder_decoder", False)
                                        and len(tables) > 1):
            yield False
            return
        patches = []
        for m in tables:
            w = m.weight.data
            moved = w.clone()
            moved[:-offset] = w[offset:]
            patches.append((m.weight, "data", moved))
        with _patched(patches):
            yield True

    def frequencies_by_position(self, prompt: int) -> Any:
        return self._by_position(lambda pos: (pos + 1).clamp(min=prompt))

    def frequencies_at(self, length: int) -> Any:
        return self._by_position(lambda pos: pos * 0 + length)
