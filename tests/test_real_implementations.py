"""posproof.testing against implementations nobody here wrote (the ``impl`` extra).

Each library's encoding must be identified and pass; a deliberately broken copy
of each must fail with the right explanation.  Versions these tests were
written against: torch 2.13.0 (CPU), transformers 5.23.0, positional-encodings
6.0.3, rotary-embedding-torch 0.9.1.  Modules are built from config objects:
nothing is downloaded.  Each library is skipped when it is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import posproof
from posproof.testing import check_encoding, check_rotary
from posproof.testing.identification import identify

torch = pytest.importorskip("torch")


def rotary_failure(fn: object, **kw: object) -> str:
    report = check_rotary(fn, **kw)
    assert not report.ok, report.checks
    return report.explanation or ""


def encoding_failure(impl: object, spec: object = "vaswani", **kw: object) -> str:
    report = check_encoding(impl, spec, **kw)
    assert not report.ok
    return report.explanation or ""


# --------------------------------------------------------------------------- positional-encodings
@pytest.fixture(scope="module")
def pe() -> object:
    return pytest.importorskip("positional_encodings.torch_encodings")


@pytest.fixture(scope="module")
def ret() -> object:
    return pytest.importorskip("rotary_embedding_torch.rotary_embedding_torch")


@pytest.fixture(scope="module")
def transformers() -> object:
    return pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def llama(transformers: object) -> object:
    return pytest.importorskip("transformers.models.llama.modeling_llama")


class TestPositionalEncodings:
    """positional-encodings' PositionalEncoding1D: interleaved sin/cos, base 10000, float32."""

    @pytest.fixture(autouse=True)
    def _library(self, pe: object) -> None:
        self.pe = pe

    def table(self, ch: int = 128, length: int = 4096) -> object:
        return self.pe.PositionalEncoding1D(ch)(torch.zeros(1, length, ch))[0]

    def test_identified_and_passes(self) -> None:
        table = self.table()
        found = identify(table)
        assert found.matched
        assert found.preset == "vaswani"
        assert found.params == {"base": "10000"}
        assert found.layout == "interleaved"
        assert found.offset == 0
        assert found.dtype == "float32"
        # the library forms x·ω in float32: off the exact table rounded to float32 by far more
        # than 4 ulps, so the default fails and names the option that accepts it
        strict = check_encoding(table, "vaswani")
        assert not strict.ok
        assert strict.accepted_with_angles == "float32"
        report = check_encoding(table, "vaswani", angles="float32")
        assert report.ok, report.message
        assert report.max_position == 4095

    def test_double_and_scaled_tables_are_identified(self) -> None:
        """Issue 13 §3: the float32 table cast with .double() carries float32 precision;
        multiplied by 1/√d (x-transformers' ScaledSinusoidalEmbedding at init) it is
        identified with its scale."""
        table = self.table(ch=128, length=2048)
        found = identify(table.double())
        assert found.matched, found.summary
        assert found.preset == "vaswani"
        assert found.precision == "float32"
        assert found.dtype == "float64"
        assert found.summary.endswith("values carry float32 precision (stored as float64)")
        scaled = identify(table * 128**-0.5)
        assert scaled.matched, scaled.summary
        assert scaled.summary.endswith("scaled by 0.088388348 = 1/√128")
        assert check_encoding(table * 128**-0.5, "vaswani", dim=128, scale=128**-0.5,
                              angles="float32").ok

    def test_swapped_copy(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def get_emb_swapped(sin_inp: object) -> object:  # the library's get_emb, cos first
            emb = torch.stack((sin_inp.cos(), sin_inp.sin()), dim=-1)
            return torch.flatten(emb, -2, -1)

        monkeypatch.setattr(self.pe, "get_emb", get_emb_swapped)
        assert encoding_failure(self.table()).startswith(
            "matches the spec with sin and cos swapped")

    def test_wrong_base_copy(self) -> None:
        module = self.pe.PositionalEncoding1D(128)
        module.inv_freq = 1.0 / (500000 ** (torch.arange(0, 128, 2).float() / 128))
        table = module(torch.zeros(1, 4096, 128))[0]
        assert encoding_failure(table).startswith("base 500000, not 10000")


# --------------------------------------------------------------------------- rotary-embedding-torch
class TestRotaryEmbeddingTorch:
    """lucidrains' rotary-embedding-torch: adjacent pairs (2k, 2k+1), theta 10000."""

    @pytest.fixture(autouse=True)
    def _library(self, ret: object) -> None:
        self.module = ret

    def apply(self, dim: int = 64, **kw: object) -> object:
        rot = self.module.RotaryEmbedding(dim=dim, **kw)

        def apply(x: object, positions: object) -> object:
            return self.module.apply_rotary_emb(rot(positions), x)

        return apply

    def test_passes_as_adjacent(self) -> None:
        assert check_rotary(self.apply(), head_dim=64,
                            layout="adjacent").accepted_with_angles == "float32"
        report = check_rotary(self.apply(), head_dim=64, layout="adjacent", angles="float32")
        assert report.ok, report.message
        assert report.fingerprint["layout"] == "adjacent"
        assert report.fingerprint["base"] == "10000"

    def test_half_spec_names_the_layout(self) -> None:
        why = rotary_failure(self.apply(), head_dim=64, layout="half")
        assert why.startswith("matches the adjacent layout, not half")

    def test_wrong_base(self) -> None:
        why = rotary_failure(self.apply(theta=500000), head_dim=64, layout="adjacent")
        assert why.startswith("base 500000, not 10000")

    def test_flipped_copy(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def rotate_half_flipped(x: object) -> object:  # the library's rotate_half, sign moved
            x = x.unflatten(-1, (-1, 2))
            x1, x2 = x.unbind(dim=-1)
            return torch.stack((x2, -x1), dim=-1).flatten(-2)

        monkeypatch.setattr(self.module, "rotate_half", rotate_half_flipped)
        report = check_rotary(self.apply(), head_dim=64, layout="adjacent", angles="float32")
        status = {c["name"]: c["status"] for c in report.checks}
        assert status["relative_property"] == "pass"
        assert status["convention"] == "fail"
        assert report.explanation.startswith("rotation direction is flipped")


# --------------------------------------------------------------------------- transformers
class TestTransformersLlamaRope:
    """HF LlamaRotaryEmbedding(config) + apply_rotary_pos_emb: half layout (rotate_half)."""

    @pytest.fixture(autouse=True)
    def _library(self, llama: object) -> None:
        self.llama = llama

    def apply(self, head_dim: int = 64, theta: float = 10000.0) -> object:
        config = self.llama.LlamaConfig(
            hidden_size=4 * head_dim, num_attention_heads=4, head_dim=head_dim,
            max_position_embeddings=4096,
            rope_parameters={"rope_type": "default", "rope_theta": theta})
        emb = self.llama.LlamaRotaryEmbedding(config)

        def apply(x: object, positions: object) -> object:
            cos, sin = emb(x, positions[None])
            return self.llama.apply_rotary_pos_emb(x, x, cos, sin)[0]

        return apply

    def test_passes_as_half(self) -> None:
        # HF forms inv_freq @ position_ids in float32 (autocast off): angles="float32"
        assert not check_rotary(self.apply(), head_dim=64).ok
        report = check_rotary(self.apply(), head_dim=64, angles="float32")
        assert report.ok, report.message
        assert report.fingerprint["layout"] == "half"

    def test_adjacent_spec_names_the_layout(self) -> None:
        why = rotary_failure(self.apply(), head_dim=64, layout="adjacent")
        assert why.startswith("matches the half layout, not adjacent")

    def test_wrong_base(self) -> None:
        why = rotary_failure(self.apply(theta=500000.0), head_dim=64)
        assert why.startswith("base 500000, not 10000")

    def test_flipped_copy(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def rotate_half_flipped(x: object) -> object:  # HF's rotate_half, wrong half negated
            x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
            return torch.cat((x2, -x1), dim=-1)

        monkeypatch.setattr(self.llama, "rotate_half", rotate_half_flipped)
        assert rotary_failure(self.apply(), head_dim=64).startswith(
            "rotation direction is flipped")


@pytest.mark.usefixtures("transformers")
class TestTransformersSinusoidal:
    """DistilBERT's create_sinusoidal_embeddings (interleaved), Marian (split halves),
    M2M100 (fairseq: exponent over n−1, padding row)."""

    def test_distilbert(self) -> None:
        distil = pytest.importorskip("transformers.models.distilbert.modeling_distilbert")
        out = torch.empty(512, 256)
        distil.create_sinusoidal_embeddings(512, 256, out)
        found = identify(out)
        assert found.matched
        assert found.preset == "vaswani"
        assert found.layout == "interleaved"
        assert check_encoding(out, "vaswani").ok
        swapped = out.clone()
        swapped[:, 0::2], swapped[:, 1::2] = out[:, 1::2], out[:, 0::2]
        assert encoding_failure(swapped).startswith("matches the spec with sin and cos swapped")

    def test_marian(self) -> None:
        marian = pytest.importorskip("transformers.models.marian.modeling_marian")
        module = marian.MarianSinusoidalPositionalEmbedding(512, 64)
        # as constructed, before the model's init writes the sinusoids: random init
        assert not identify(module.weight).matched
        why = encoding_failure(module, "vaswani", layout="split")
        assert why.startswith("no explanation confirmed")
        assert why.endswith("identify: matches no known schedule: no pairing of the columns "
                            "gives (sin, cos) pairs (sin² + cos² = 1)")
        with torch.no_grad():
            module.weight.copy_(module.create_weight())
        found = identify(module.weight)
        assert found.matched
        assert found.preset == "vaswani"
        assert found.layout == "split"
        assert check_encoding(module, "vaswani", layout="split").ok
        assert encoding_failure(module, "vaswani").startswith(
            "matches the split layout, not interleaved")

    def test_m2m100_fairseq(self) -> None:
        m2m = pytest.importorskip("transformers.models.m2m_100.modeling_m2m_100")
        module = m2m.M2M100SinusoidalPositionalEmbedding(1024, 64, padding_idx=1)
        weights = module.weights
        found = identify(weights)
        assert found.matched
        assert found.preset == "fairseq"
        assert found.zero_rows == [1]
        assert found.exponent == "n-1"
        assert check_encoding(weights, "fairseq", angles="float32").ok

        def forward(positions: np.ndarray) -> object:  # the module's own lookup path
            embeds = torch.zeros(1, len(positions), 64)
            return module(inputs_embeds=embeds)[0]

        assert check_encoding(forward, "fairseq", positions=np.arange(2, 1026),
                              angles="float32").ok
        why = encoding_failure(weights, "vaswani", layout="split")
        assert why.startswith("frequencies follow an exponent over n−1, as in tensor2tensor")
        # a copy that forgets padding_idx + 1 and reads rows from 0 as positions 2, 3, …
        why = encoding_failure(weights[:1000], "fairseq", first_position=2)
        assert why.startswith("offset by -2 positions")

    def test_fairseq_preset_matches_m2m100_exactly(self) -> None:
        m2m = pytest.importorskip("transformers.models.m2m_100.modeling_m2m_100")
        weights = m2m.M2M100SinusoidalPositionalEmbedding.get_embedding(300, 32, 1)
        enc = posproof.preset("fairseq", dim=32)
        assert np.abs(weights.numpy() - enc.table(np.arange(300))).max() < 1e-4
