// The attention's parameters and K/V width from its heads, shared by the config.json and
// Megatron-LM readers, which name the same sizes differently.
#include "workload_formats.hpp"

namespace meshbench::mapping::detail {

// Q and O are h × heads·d, K and V h × kv_heads·d; K/V of kv_heads·d travel around a CP ring.
std::string set_gqa_attention(Workload& w, int heads, int kv_heads, int head_dim) {
  w.kv_hidden = kv_heads * head_dim;
  w.heads = heads;
  w.kv_heads = kv_heads;
  w.attention_params = 2.0 * w.hidden * heads * head_dim + 2.0 * w.hidden * kv_heads * head_dim;
  return (kv_heads == heads ? "MHA: " : "GQA: ") + std::to_string(heads) + " heads, " + std::to_string(kv_heads) + " K/V heads of " +
         std::to_string(head_dim);
}

// Multi-head latent attention (DeepSeek-V2/V3): Q through a low-rank q_lora (or directly
// without one), K/V through one kv_lora down-projection shared with the rope key, then per-head
// up-projections; O from heads·v back to h. Megatron-Core's MLA hands the up-projected K
// (heads·(nope+rope)) and V (heads·v) to the attention kernel, so a CP ring passes those.
std::string set_mla_attention(Workload& w, const MlaShape& m) {
  const double h = w.hidden, heads = m.heads;
  const double q = m.q_lora > 0 ? h * m.q_lora + static_cast<double>(m.q_lora) * heads * (m.nope + m.rope) : h * heads * (m.nope + m.rope);
  const double kv = h * (m.kv_lora + m.rope) + static_cast<double>(m.kv_lora) * heads * (m.nope + m.v);
  w.attention_params = q + kv + heads * m.v * h;
  w.kv_hidden = m.heads * (m.nope + m.rope + m.v) / 2;
  w.heads = m.heads;
  w.kv_heads = m.heads;  // MLA up-projects K and V per query head
  return "MLA: " + std::to_string(m.heads) + " heads, q_lora_rank " + (m.q_lora > 0 ? std::to_string(m.q_lora) : std::string("none")) +
         ", kv_lora_rank " + std::to_string(m.kv_lora) + ", q/k " + std::to_string(m.nope) + "+" + std::to_string(m.rope) + " rope, v " +
         std::to_string(m.v);
}

}  // namespace meshbench::mapping::detail
