// A Megatron-LM launch script or argument list into a Workload and the layout it launches. A
// script is read the way a shell would see its words (continuation lines joined, quotes, simple
// variables and ${VAR:-default}); every --option anywhere in it counts, so arguments kept in
// bash arrays and on the torchrun line are both found, and lines without options are skipped.
// Defaults are Megatron-LM's own (megatron/training/arguments.py) where an option is absent.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "workload_formats.hpp"

namespace meshbench::mapping::detail {

namespace {

struct Word {
  std::string text;
  int line;
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

class Shell {
 public:
  // The file's words, in order; assignments NAME=VALUE are remembered for later expansions.
  std::vector<Word> words(const std::string& text) {
    std::vector<Word> out;
    std::istringstream in(text);
    std::string logical, line;
    int number = 0, start = 0;
    while (std::getline(in, line)) {
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (logical.empty()) start = number;
      if (!line.empty() && line.back() == '\\') {
        line.pop_back();
        logical += line + " ";
        continue;
      }
      logical += line;
      split(logical, start, out);
      logical.clear();
    }
    if (!logical.empty()) split(logical, start, out);
    return out;
  }

 private:
  void split(const std::string& s, int line, std::vector<Word>& out) {
    std::vector<std::string> words;
    std::string cur;
    bool in_word = false;
    auto finish = [&] {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '#' && !in_word) break;  // a comment runs to the end of the line
      if (std::isspace(static_cast<unsigned char>(c)) != 0 || c == ';' || c == '|' || c == '&' || c == '(' || c == ')') {
        if (c == '(' && i > 0 && s[i - 1] == '$') {  // $( ... ): a command's output, unknown here
          cur += c;
          in_word = true;
          continue;
        }
        finish();
        continue;
      }
      in_word = true;
      if (c == '\'') {
        const auto end = s.find('\'', i + 1);
        cur += s.substr(i + 1, (end == std::string::npos ? s.size() : end) - i - 1);
        i = end == std::string::npos ? s.size() : end;
      } else if (c == '"') {
        const auto end = s.find('"', i + 1);
        cur += expand(s.substr(i + 1, (end == std::string::npos ? s.size() : end) - i - 1));
        i = end == std::string::npos ? s.size() : end;
      } else if (c == '$') {
        const std::size_t used = expand_at(s, i, cur);
        i += used - 1;
      } else if (c == '\\' && i + 1 < s.size()) {
        cur += s[++i];
      } else {
        cur += c;
      }
    }
    finish();
    // NAME=VALUE (after export/local/declare) at the start of a command sets a variable.
    std::size_t first = 0;
    while (first < words.size() && (words[first] == "export" || words[first] == "local" || words[first] == "declare")) ++first;
    for (std::size_t k = first; k < words.size(); ++k) {
      const auto eq = words[k].find('=');
      if (eq == std::string::npos || eq == 0 || words[k].rfind("--", 0) == 0) break;
      bool name = true;
      for (std::size_t n = 0; n < eq; ++n) name = name && is_name_char(words[k][n]);
      if (!name) break;
      vars_[words[k].substr(0, eq)] = words[k].substr(eq + 1);
    }
    for (auto& w : words) out.push_back({std::move(w), line});
  }

  std::string expand(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '$') {
        i += expand_at(s, i, out) - 1;
      } else {
        out += s[i];
      }
    }
    return out;
  }

  // Expands the variable at s[i] == '$' onto `out`; returns how many characters it took. An
  // unknown variable stays as written, so that an option needing its value can name it.
  std::size_t expand_at(const std::string& s, std::size_t i, std::string& out) {
    if (i + 1 < s.size() && s[i + 1] == '{') {
      const auto end = s.find('}', i + 2);
      if (end == std::string::npos) {
        out += s.substr(i);
        return s.size() - i;
      }
      const std::string inner = s.substr(i + 2, end - i - 2);
      std::size_t n = 0;
      while (n < inner.size() && is_name_char(inner[n])) ++n;
      const std::string name = inner.substr(0, n);
      const std::string rest = inner.substr(n);
      const auto it = vars_.find(name);
      // An array's words were read where the array was written.
      if (rest.rfind("[@]", 0) == 0 || rest.rfind("[*]", 0) == 0) return end - i + 1;
      if (it != vars_.end() && !it->second.empty()) {
        out += it->second;
      } else if (rest.rfind(":-", 0) == 0 || rest.rfind(":=", 0) == 0 || rest.rfind('-', 0) == 0) {
        const std::string fallback = expand(rest.substr(rest[0] == ':' ? 2 : 1));
        out += fallback;
        if (rest.rfind(":=", 0) == 0) vars_[name] = fallback;
      } else if (it == vars_.end()) {
        out += s.substr(i, end - i + 1);  // unknown: kept as written (set and empty: nothing)
      }
      return end - i + 1;
    }
    std::size_t n = i + 1;
    while (n < s.size() && is_name_char(s[n])) ++n;
    if (n == i + 1) {
      out += '$';
      return 1;
    }
    const auto it = vars_.find(s.substr(i + 1, n - i - 1));
    out += it != vars_.end() ? it->second : s.substr(i, n - i);
    return n - i;
  }

  std::map<std::string, std::string> vars_;
};

// Megatron-LM's options that take no value.
const std::set<std::string> kFlags = {"--sequence-parallel",
                                      "--use-distributed-optimizer",
                                      "--bf16",
                                      "--fp16",
                                      "--untie-embeddings-and-output-weights",
                                      "--group-query-attention",
                                      "--multi-latent-attention",
                                      "--use-tp-pp-dp-mapping",
                                      "--moe-pad-expert-input-to-capacity",
                                      "--swiglu",
                                      "--accumulate-allreduce-grads-in-fp32",
                                      "--grad-reduce-in-bf16",
                                      "--disable-bias-linear",
                                      "--use-mcore-models",
                                      "--use-flash-attn",
                                      "--overlap-grad-reduce",
                                      "--overlap-param-gather",
                                      "--moe-grouped-gemm",
                                      "--moe-permute-fusion",
                                      "--moe-shared-expert-overlap",
                                      "--moe-router-pre-softmax",
                                      "--moe-router-enable-expert-bias",
                                      "--moe-per-layer-logging",
                                      "--no-masked-softmax-fusion",
                                      "--no-bias-gelu-fusion",
                                      "--no-bias-swiglu-fusion",
                                      "--no-bias-dropout-fusion",
                                      "--no-rope-fusion",
                                      "--no-gradient-accumulation-fusion",
                                      "--use-rotary-position-embeddings",
                                      "--tp-comm-overlap",
                                      "--moe-layer-recompute",
                                      "--moe-extended-tp",
                                      "--moe-use-upcycling",
                                      "--qk-layernorm",
                                      "--add-qkv-bias",
                                      "--no-load-optim",
                                      "--no-load-rng",
                                      "--no-save-optim",
                                      "--no-save-rng",
                                      "--log-throughput",
                                      "--log-timers-to-tensorboard",
                                      "--log-validation-ppl-to-tensorboard",
                                      "--log-memory-to-tensorboard",
                                      "--log-num-zeros-in-grad",
                                      "--log-params-norm",
                                      "--use-checkpoint-args",
                                      "--exit-on-missing-checkpoint",
                                      "--no-async-tensor-model-parallel-allreduce",
                                      "--mock-data",
                                      "--no-create-attention-mask-in-dataloader",
                                      "--manual-gc",
                                      "--calculate-per-token-loss",
                                      "--ckpt-fully-parallel-save",
                                      "--ckpt-fully-parallel-load",
                                      "--async-save",
                                      "--use-precision-aware-optimizer",
                                      "--moe-router-fusion",
                                      "--moe-enable-deepep",
                                      "--moe-apply-probs-on-input",
                                      "--standalone"};

// Read and modelled (the workload's or the layout's), beside the flags above that are.
const std::set<std::string> kRead = {"--num-layers",
                                     "--hidden-size",
                                     "--ffn-hidden-size",
                                     "--moe-ffn-hidden-size",
                                     "--num-experts",
                                     "--moe-router-topk",
                                     "--num-attention-heads",
                                     "--num-query-groups",
                                     "--kv-channels",
                                     "--seq-length",
                                     "--micro-batch-size",
                                     "--global-batch-size",
                                     "--tensor-model-parallel-size",
                                     "--pipeline-model-parallel-size",
                                     "--expert-model-parallel-size",
                                     "--expert-tensor-parallel-size",
                                     "--context-parallel-size",
                                     "--sequence-parallel",
                                     "--use-distributed-optimizer",
                                     "--bf16",
                                     "--fp16",
                                     "--moe-shared-expert-intermediate-size",
                                     "--moe-layer-freq",
                                     "--untie-embeddings-and-output-weights",
                                     "--group-query-attention",
                                     "--multi-latent-attention",
                                     "--q-lora-rank",
                                     "--kv-lora-rank",
                                     "--qk-head-dim",
                                     "--qk-pos-emb-head-dim",
                                     "--v-head-dim",
                                     "--vocab-size",
                                     "--swiglu",
                                     "--use-tp-pp-dp-mapping",
                                     "--moe-token-dispatcher-type",
                                     "--moe-expert-capacity-factor",
                                     "--moe-pad-expert-input-to-capacity",
                                     "--accumulate-allreduce-grads-in-fp32",
                                     "--grad-reduce-in-bf16",
                                     "--recompute-granularity",
                                     "--nproc_per_node",
                                     "--nproc-per-node",
                                     "--nnodes"};

// Change the traffic in ways meshbench does not model: refused, with the way out.
const std::map<std::string, std::string> kNotModelled = {
    {"--num-layers-per-virtual-pipeline-stage", "an interleaved pipeline sends activations once per model chunk"},
    {"--num-virtual-stages-per-pipeline-rank", "an interleaved pipeline sends activations once per model chunk"},
    {"--moe-layer-recompute", "recomputing MoE layers repeats their all-to-alls"},
    {"--mtp-num-layers", "multi-token prediction adds layers and their traffic"},
    {"--moe-extended-tp", "extended TP spreads experts over TP as well"},
    {"--hybrid-override-pattern", "hybrid Mamba layers have other traffic"},
    {"--encoder-num-layers", "an encoder-decoder model has two stacks"}};

// Known not to change the volumes (MoE options are listed one by one: any other --moe-* or
// --expert-* option is refused, since most of them do).
const std::set<std::string> kHarmlessMoe = {"--moe-router-load-balancing-type",
                                            "--moe-aux-loss-coeff",
                                            "--moe-z-loss-coeff",
                                            "--moe-grouped-gemm",
                                            "--moe-router-dtype",
                                            "--moe-router-score-function",
                                            "--moe-router-enable-expert-bias",
                                            "--moe-router-bias-update-rate",
                                            "--moe-router-topk-scaling-factor",
                                            "--moe-router-pre-softmax",
                                            "--moe-router-num-groups",
                                            "--moe-router-group-topk",
                                            "--moe-permute-fusion",
                                            "--moe-shared-expert-overlap",
                                            "--moe-token-drop-policy",
                                            "--moe-input-jitter-eps",
                                            "--moe-per-layer-logging",
                                            "--moe-use-upcycling",
                                            "--moe-router-fusion",
                                            "--moe-enable-deepep",
                                            "--moe-deepep-num-sms",
                                            "--moe-apply-probs-on-input",
                                            "--moe-use-legacy-grouped-gemm",
                                            "--moe-upcycling-granularity"};

struct Arg {
  std::string value;
  int line;
};

class Args {
 public:
  Args(std::map<std::string, Arg> args, std::string where) : args_(std::move(args)), where_(std::move(where)) {}
  bool has(const std::string& name) const { return args_.count(name) != 0; }
  std::optional<std::string> text(const std::string& name) const {
    const auto it = args_.find(name);
    if (it == args_.end()) return std::nullopt;
    return it->second.value;
  }
  std::optional<int> number(const std::string& name, int minimum = 1) const {
    const auto it = args_.find(name);
    if (it == args_.end()) return std::nullopt;
    const std::string& v = it->second.value;
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (v.empty() || used != v.size()) {
      throw InputError("Megatron arguments " + where_ + " line " + std::to_string(it->second.line) + ": " + name + " is '" + v +
                       "', not a number; write the number, or set the variable it names in the file");
    }
    if (n < minimum || n > 1'000'000'000) {
      throw InputError("Megatron arguments " + where_ + " line " + std::to_string(it->second.line) + ": " + name + " must be at least " +
                       std::to_string(minimum) + " (got " + v + ")");
    }
    return static_cast<int>(n);
  }
  int need(const std::string& name) const {
    const auto n = number(name);
    if (!n) throw InputError("Megatron arguments " + where_ + " lack " + name + ", which sets the traffic; add it to the launch arguments");
    return *n;
  }
  [[noreturn]] void refuse(const std::string& name, const std::string& why) const {
    const auto it = args_.find(name);
    const std::string at = it != args_.end() ? " line " + std::to_string(it->second.line) : "";
    throw InputError("Megatron arguments " + where_ + at + ": " + name + " changes the traffic in a way meshbench does not model (" + why +
                     "); remove it to compare mappings without it");
  }

 private:
  std::map<std::string, Arg> args_;
  std::string where_;
};

// --moe-layer-freq: N (every N-th layer, from layer 0, is MoE) or a Python list of 0/1 per
// layer, written out or as a sum of repeated lists ("([0]*3+[1]*58)").
std::vector<int> moe_layer_pattern(const std::string& freq, int layers, const std::string& where) {
  auto refuse = [&] {
    throw InputError("Megatron arguments " + where + ": --moe-layer-freq '" + freq +
                     "' is neither a number nor a list of 0 and 1 such as \"([0]*3+[1]*58)\"");
  };
  std::string s;
  for (char c : freq) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0 && c != '(' && c != ')' && c != '"' && c != '\'') s += c;
  }
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    const int n = std::stoi(s.size() > 9 ? std::string("0") : s);
    if (n < 1) refuse();
    std::vector<int> every(static_cast<std::size_t>(layers), 0);
    for (int i = 0; i < layers; i += n) every[static_cast<std::size_t>(i)] = 1;
    return every;
  }
  std::vector<int> pattern;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '[') refuse();
    const auto close = s.find(']', i);
    if (close == std::string::npos) refuse();
    std::vector<int> items;
    std::stringstream list(s.substr(i + 1, close - i - 1));
    for (std::string item; std::getline(list, item, ',');) {
      if (item != "0" && item != "1") refuse();
      items.push_back(item == "1" ? 1 : 0);
    }
    i = close + 1;
    int repeat = 1;
    if (i < s.size() && s[i] == '*') {
      std::size_t end = i + 1;
      while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end])) != 0) ++end;
      if (end == i + 1 || end - i > 7) refuse();
      repeat = std::stoi(s.substr(i + 1, end - i - 1));
      i = end;
    }
    for (int r = 0; r < repeat && pattern.size() <= static_cast<std::size_t>(layers); ++r)
      pattern.insert(pattern.end(), items.begin(), items.end());
    if (i < s.size()) {
      if (s[i] != '+') refuse();
      ++i;
    }
  }
  if (pattern.size() != static_cast<std::size_t>(layers)) {
    throw InputError("Megatron arguments " + where + ": --moe-layer-freq lists " + std::to_string(pattern.size()) +
                     " layers for --num-layers " + std::to_string(layers) + "; give one 0 or 1 per layer");
  }
  return pattern;
}

std::map<std::string, Arg> collect(const std::vector<Word>& shell_words, std::vector<std::string>& ignored, const std::string& where) {
  // An unquoted $VAR holding several options is split by the shell; splitting every word at
  // white space does the same for them (and only loses values with spaces, which nothing here reads).
  std::vector<Word> words;
  for (const auto& sw : shell_words) {
    std::istringstream pieces(sw.text);
    for (std::string piece; pieces >> piece;) words.push_back({piece, sw.line});
  }
  std::map<std::string, Arg> args;
  std::set<std::string> seen_ignored;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i].text;
    if (w.size() < 3 || w.rfind("--", 0) != 0 || std::isalpha(static_cast<unsigned char>(w[2])) == 0) continue;
    std::string name = w, value;
    bool inline_value = false;
    if (const auto eq = w.find('='); eq != std::string::npos) {
      name = w.substr(0, eq);
      value = w.substr(eq + 1);
      inline_value = true;
    }
    if (!inline_value && kFlags.count(name) == 0 && i + 1 < words.size() && words[i + 1].text.rfind("--", 0) != 0) {
      value = words[++i].text;
    }
    if (kRead.count(name) != 0 || kNotModelled.count(name) != 0) {
      args[name] = {value, words[i].line};
      continue;
    }
    const bool expert_option = name.rfind("--moe-", 0) == 0 || name.rfind("--expert-", 0) == 0 || name.rfind("--num-experts", 0) == 0;
    if ((expert_option && kHarmlessMoe.count(name) == 0) || name.find("parallel-size") != std::string::npos) {
      throw InputError("Megatron arguments " + where + " line " + std::to_string(words[i].line) + ": " + name +
                       " is not understood and may change the traffic; remove it, or describe the model as a meshbench workload file");
    }
    if (seen_ignored.insert(name).second) ignored.push_back(name);
  }
  return args;
}

}  // namespace

WorkloadFile from_megatron(const std::string& text, const std::string& where) {
  Shell shell;
  WorkloadFile f;
  f.format = "Megatron-LM arguments";
  const Args a(collect(shell.words(text), f.ignored, where), where);
  for (const auto& [name, why] : kNotModelled) {
    if (a.has(name)) a.refuse(name, why);
  }
  if (a.text("--recompute-granularity").value_or("selective") == "full") {
    a.refuse("--recompute-granularity", "full recomputation repeats every layer's forward collectives");
  }

  Workload& w = f.workload;
  w.layers = a.need("--num-layers");
  w.hidden = a.need("--hidden-size");
  const int heads = a.need("--num-attention-heads");
  w.seq_len = a.need("--seq-length");
  w.micro_batch = a.need("--micro-batch-size");
  // Without --global-batch-size Megatron runs one micro-batch per DP rank per step.
  w.global_batch = a.number("--global-batch-size").value_or(0);
  w.micro_batches = 1;
  w.gated_mlp = a.has("--swiglu");
  // Megatron's default MLP width: 4h, or for SwiGLU 2/3 of that rounded down to a multiple of 64.
  const int default_ffn = w.gated_mlp ? (4 * w.hidden * 2 / 3) / 64 * 64 : 4 * w.hidden;
  w.ffn_hidden = a.number("--ffn-hidden-size").value_or(default_ffn);
  w.experts = a.number("--num-experts").value_or(0);
  w.top_k = w.experts > 1 ? a.number("--moe-router-topk").value_or(2) : 1;
  w.moe_ffn_hidden = a.number("--moe-ffn-hidden-size").value_or(0);
  w.shared_expert_ffn_hidden = a.number("--moe-shared-expert-intermediate-size").value_or(0);
  if (w.experts > 1) {
    if (a.has("--moe-layer-freq")) {
      w.moe_layer_pattern = moe_layer_pattern(*a.text("--moe-layer-freq"), w.layers, where);
      w.moe_layers = static_cast<int>(std::count(w.moe_layer_pattern.begin(), w.moe_layer_pattern.end(), 1));
    }
    // Megatron's default dispatcher is allgather, whose traffic differs from the all-to-all modelled here.
    const std::string dispatcher = a.text("--moe-token-dispatcher-type").value_or("allgather");
    if (dispatcher != "alltoall" && dispatcher != "flex") {
      throw InputError("Megatron arguments " + where + ": --moe-token-dispatcher-type is " + dispatcher +
                       (a.has("--moe-token-dispatcher-type") ? "" : " (Megatron's default)") +
                       ", whose traffic meshbench does not model; use --moe-token-dispatcher-type alltoall");
    }
    if (a.has("--moe-expert-capacity-factor")) {
      const std::string cf = *a.text("--moe-expert-capacity-factor");
      if (a.has("--moe-pad-expert-input-to-capacity")) {
        try {
          w.capacity_factor = std::stod(cf);
        } catch (const std::exception&) {
          throw InputError("Megatron arguments " + where + ": --moe-expert-capacity-factor is '" + cf + "', not a number");
        }
        if (!(w.capacity_factor > 0)) throw InputError("Megatron arguments " + where + ": --moe-expert-capacity-factor must be above 0");
      } else {
        f.notes.push_back("--moe-expert-capacity-factor without padding drops tokens above capacity; volumes are those of uniform routing");
      }
    }
  }

  // Attention: GQA groups only with --group-query-attention; MLA with its own head widths.
  const int head_dim = a.number("--kv-channels").value_or(w.hidden / heads);
  if (a.has("--multi-latent-attention")) {
    // Megatron-LM's MLA defaults: no Q compression, kv_lora 32, q/k 128 + 64 rope, v 128.
    f.attention = set_mla_attention(w, {.heads = heads,
                                        .q_lora = a.number("--q-lora-rank").value_or(0),
                                        .kv_lora = a.number("--kv-lora-rank").value_or(32),
                                        .nope = a.number("--qk-head-dim").value_or(128),
                                        .rope = a.number("--qk-pos-emb-head-dim").value_or(64),
                                        .v = a.number("--v-head-dim").value_or(128)});
  } else {
    const int groups = a.has("--group-query-attention") ? a.number("--num-query-groups").value_or(1) : heads;
    f.attention = set_gqa_attention(w, heads, groups, head_dim);
  }
  w.tied_embeddings = !a.has("--untie-embeddings-and-output-weights");
  if (const auto vocab = a.number("--vocab-size")) {
    w.vocab = *vocab;
  } else {
    f.notes.push_back("no --vocab-size (the tokenizer decides): " + std::to_string(w.vocab) + " assumed for the embedding parameters");
  }
  // With bf16 Megatron accumulates and reduces gradients in fp32 unless told otherwise.
  w.dtype = a.has("--bf16") ? "bf16" : a.has("--fp16") ? "fp16" : "fp32";
  w.grad_dtype = a.has("--bf16")   ? (a.has("--grad-reduce-in-bf16") ? "bf16" : "fp32")
                 : a.has("--fp16") ? (a.has("--accumulate-allreduce-grads-in-fp32") ? "fp32" : "fp16")
                                   : "fp32";
  w.sequence_parallel = a.has("--sequence-parallel");
  w.distributed_optimizer = a.has("--use-distributed-optimizer");

  FileLayout& l = f.layout;
  l.tp = a.number("--tensor-model-parallel-size");
  l.pp = a.number("--pipeline-model-parallel-size");
  l.ep = a.number("--expert-model-parallel-size");
  l.etp = a.number("--expert-tensor-parallel-size");
  l.cp = a.number("--context-parallel-size");
  if (a.has("--use-tp-pp-dp-mapping")) l.order = "tp-cp-ep-pp-dp";
  const auto per_node = a.has("--nproc_per_node") ? a.text("--nproc_per_node") : a.text("--nproc-per-node");
  const auto nodes = a.text("--nnodes");
  if (per_node && nodes && per_node->find_first_not_of("0123456789") == std::string::npos &&
      nodes->find_first_not_of("0123456789") == std::string::npos && !per_node->empty() && !nodes->empty() && per_node->size() < 6 &&
      nodes->size() < 6) {
    l.world = std::stoi(*per_node) * std::stoi(*nodes);
  }
  check_model_shape(w, where);
  return f;
}

}  // namespace meshbench::mapping::detail
