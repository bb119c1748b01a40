"""The sentence encoder as an ONNX graph, built with ONNX's own tooling from the weights the numpy encoder reads.

No torch export: `build_sentence_graph` writes the same computation as `bert_numpy.encode_packed` followed by
mean pooling and L2 normalisation, over padded (batch, tokens) inputs with an attention mask:

    ids, mask -> embeddings + LayerNorm -> N x [Attention -> Add + LayerNorm -> MatMul, Gelu, MatMul -> Add +
    LayerNorm] -> masked mean -> unit vector

Attention and Gelu are ONNX Runtime's CPU kernels (`com.microsoft` domain): one fused multi-head attention per
layer that skips padded keys, the exact (erf) GELU. ONNX Runtime's optimiser fuses the rest (bias adds into
SkipLayerNormalization / BiasGelu) when the session loads, and `onnxruntime.quantization` can turn the graph's
MatMul/Attention weights into int8 (see `onnx_encoder`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from grasp_agent.embed.bert_numpy import EncoderWeights, LayerWeights, relative_position_buckets

OPSET = 17  # LayerNormalization is a standard op from 17 on
MS_DOMAIN = "com.microsoft"
INPUT_IDS = "input_ids"
ATTENTION_MASK = "attention_mask"
OUTPUT = "sentence_embedding"


class _GraphBuilder:
    """Collects nodes and initializers; every tensor name is unique by construction (prefix + counter)."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._counter = 0

    def name(self, hint: str) -> str:
        self._counter += 1
        return f"{hint}_{self._counter}"

    def constant(self, hint: str, value: np.ndarray) -> str:
        tensor_name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), tensor_name))
        return tensor_name

    def op(
        self,
        op_type: str,
        inputs: list[str],
        hint: str,
        *,
        domain: str = "",
        output: str | None = None,
        **attributes: Any,
    ) -> str:
        output = output or self.name(hint)
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output, domain=domain, **attributes))
        return output


def _layer_norm(graph: _GraphBuilder, x: str, weight: np.ndarray, bias: np.ndarray, eps: float, hint: str) -> str:
    return graph.op(
        "LayerNormalization",
        [x, graph.constant(f"{hint}_w", weight), graph.constant(f"{hint}_b", bias)],
        hint,
        axis=-1,
        epsilon=eps,
    )


def _linear(graph: _GraphBuilder, x: str, weight_t: np.ndarray, bias: np.ndarray, hint: str) -> str:
    product = graph.op("MatMul", [x, graph.constant(f"{hint}_w", weight_t)], f"{hint}_mm")
    return graph.op("Add", [product, graph.constant(f"{hint}_b", bias)], hint)


def _embeddings(graph: _GraphBuilder, weights: EncoderWeights, mask_i64: str, sequence_length: str) -> str:
    """Token + position (+ BERT's token-type-0) embeddings, LayerNorm; `sequence_length` is a 1-element tensor."""
    config = weights.config
    words = weights.word_embeddings
    if weights.token_type_row is not None:
        # BERT adds the token-type-0 row to every token: folded into the table, the same float sum per token.
        words = words + weights.token_type_row
    hidden = graph.op("Gather", [graph.constant("word_embeddings", words), INPUT_IDS], "words", axis=0)
    if config.model_type == "mpnet":
        # As HF's create_position_ids_from_input_ids: running count of real tokens, pads keep the pad index.
        counted = graph.op("CumSum", [mask_i64, graph.constant("axis1", np.array(1, dtype=np.int64))], "count")
        real = graph.op("Mul", [counted, mask_i64], "real_positions")
        positions = graph.op(
            "Add", [real, graph.constant("pad_id", np.array(config.pad_token_id, dtype=np.int64))], "positions"
        )
        placed = graph.op(
            "Gather", [graph.constant("position_embeddings", weights.position_embeddings), positions], "placed", axis=0
        )
    else:
        # Positions 0..S-1: the first S rows of the table (a Slice, not Range + Gather, which ONNX Runtime's
        # GatherToSlice fusion rewrites wrongly when the length comes through Squeeze).
        placed = graph.op(
            "Slice",
            [
                graph.constant("position_embeddings", weights.position_embeddings),
                graph.constant("zero1", np.array([0], dtype=np.int64)),
                sequence_length,
                graph.constant("axis0p", np.array([0], dtype=np.int64)),
            ],
            "placed",
        )
    summed = graph.op("Add", [hidden, placed], "embedded")
    return _layer_norm(
        graph, summed, weights.embed_norm_weight, weights.embed_norm_bias, config.layer_norm_eps, "embed_norm"
    )


def _relative_bias(graph: _GraphBuilder, weights: EncoderWeights, sequence_length: str) -> str:
    """MPNet's (1, heads, S, S) score bias: bucket table sliced to the batch's length, then looked up."""
    assert weights.relative_bias is not None
    config = weights.config
    table = relative_position_buckets(config.max_position_embeddings, config.relative_attention_num_buckets)
    zero = graph.constant("zero2", np.array([0, 0], dtype=np.int64))
    ends = graph.op("Concat", [sequence_length, sequence_length], "bias_ends", axis=0)
    buckets = graph.op("Slice", [graph.constant("buckets", table.astype(np.int64)), zero, ends], "buckets_s")
    per_pair = graph.op(
        "Gather", [graph.constant("relative_bias", weights.relative_bias), buckets], "bias_pairs", axis=0
    )
    heads_first = graph.op("Transpose", [per_pair], "bias_t", perm=[2, 0, 1])
    return graph.op("Unsqueeze", [heads_first, graph.constant("axis0", np.array([0], dtype=np.int64))], "bias")


def _layer(
    graph: _GraphBuilder,
    layer: LayerWeights,
    hidden: str,
    mask_i32: str,
    bias: str | None,
    weights: EncoderWeights,
    index: int,
) -> str:
    config = weights.config
    eps = config.layer_norm_eps
    p = f"layer{index}"
    attention_inputs = [
        hidden,
        graph.constant(f"{p}_qkv_w", layer.qkv_t),
        graph.constant(f"{p}_qkv_b", layer.qkv_bias),
        mask_i32,
    ]
    if bias is not None:
        attention_inputs += ["", bias]  # no past state; the relative position bias is input 5
    context = graph.op(
        "Attention",
        attention_inputs,
        f"{p}_attention",
        domain=MS_DOMAIN,
        num_heads=config.num_heads,
        scale=1.0 / math.sqrt(config.hidden_size // config.num_heads),
    )
    attended = _linear(graph, context, layer.attn_out_t, layer.attn_out_bias, f"{p}_attn_out")
    residual = graph.op("Add", [attended, hidden], f"{p}_attn_residual")
    hidden = _layer_norm(graph, residual, layer.attn_norm_weight, layer.attn_norm_bias, eps, f"{p}_attn_norm")
    expanded = graph.op(
        "Gelu", [_linear(graph, hidden, layer.up_t, layer.up_bias, f"{p}_up")], f"{p}_gelu", domain=MS_DOMAIN
    )
    output = _linear(graph, expanded, layer.down_t, layer.down_bias, f"{p}_down")
    residual = graph.op("Add", [output, hidden], f"{p}_out_residual")
    return _layer_norm(graph, residual, layer.out_norm_weight, layer.out_norm_bias, eps, f"{p}_out_norm")


def _mean_pool_normalize(graph: _GraphBuilder, hidden: str, mask_i64: str) -> str:
    """sentence-transformers' masked mean (token count clamped at 1e-9), then x / max(|x|, 1e-12)."""
    mask = graph.op("Cast", [mask_i64], "mask_f", to=TensorProto.FLOAT)
    mask3 = graph.op("Unsqueeze", [mask, graph.constant("axis_last", np.array([-1], dtype=np.int64))], "mask3")
    sums = graph.op(
        "ReduceSum",
        [graph.op("Mul", [hidden, mask3], "masked"), graph.constant("axis_tokens", np.array([1], dtype=np.int64))],
        "sums",
        keepdims=0,
    )
    counts = graph.op(
        "ReduceSum", [mask3, graph.constant("axis_tokens2", np.array([1], dtype=np.int64))], "counts", keepdims=0
    )
    counts = graph.op("Max", [counts, graph.constant("count_floor", np.array(1e-9, dtype=np.float32))], "counts_c")
    mean = graph.op("Div", [sums, counts], "mean")
    norm = graph.op("ReduceL2", [mean], "norm", axes=[-1], keepdims=1)  # axes is an attribute until opset 18
    norm = graph.op("Max", [norm, graph.constant("norm_floor", np.array(1e-12, dtype=np.float32))], "norm_c")
    return graph.op("Div", [mean, norm], "normalized", output=OUTPUT)


def build_sentence_graph(weights: EncoderWeights) -> onnx.ModelProto:
    """(input_ids, attention_mask) int64 (batch, tokens) -> unit sentence vectors (batch, hidden) float32."""
    graph = _GraphBuilder()
    shape = graph.op("Shape", [INPUT_IDS], "ids_shape")
    sequence_length = graph.op(
        "Slice",
        [
            shape,
            graph.constant("one_s", np.array([1], dtype=np.int64)),
            graph.constant("two_s", np.array([2], dtype=np.int64)),
        ],
        "seq_len",
    )
    mask_i32 = graph.op("Cast", [ATTENTION_MASK], "mask_i32", to=TensorProto.INT32)
    hidden = _embeddings(graph, weights, ATTENTION_MASK, sequence_length)
    bias = _relative_bias(graph, weights, sequence_length) if weights.relative_bias is not None else None
    for index, layer in enumerate(weights.layers):
        hidden = _layer(graph, layer, hidden, mask_i32, bias, weights, index)
    _mean_pool_normalize(graph, hidden, ATTENTION_MASK)
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in (INPUT_IDS, ATTENTION_MASK)
    ]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", weights.config.hidden_size])
    body = helper.make_graph(graph.nodes, "sentence_encoder", inputs, [output], graph.initializers)
    model = helper.make_model(
        body, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)], producer_name="grasp"
    )
    model.ir_version = 8  # readable by every onnxruntime >= 1.12
    return model
