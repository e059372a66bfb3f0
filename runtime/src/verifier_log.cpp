// The verifier log parser (see verifier_log.h). Works backwards from the end: the message is the
// block of plain lines just before the statistics ("processed N insns"), the failing instruction is
// the last instruction line before the message, the source is the last annotation before that.
#include "uringc/verifier_log.h"

#include <charconv>
#include <climits>
#include <cstring>
#include <regex>

namespace uringc {
namespace {

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) nl = s.size();
    std::string_view line = s.substr(start, nl - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

// A decimal number the regexes matched; saturates instead of throwing as std::stoul would (a
// log line can carry any digits).
uint32_t ToU32(const std::string& digits) {
  uint32_t v = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return r.ec == std::errc() ? v : UINT32_MAX;
}
int ToInt(const std::string& digits) {
  const uint32_t v = ToU32(digits);
  return v > INT_MAX ? INT_MAX : static_cast<int>(v);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// Built on first use rather than at start-up: every `uringc` process links this file, and three
// std::regex constructors cost about 0.3 ms of each `uringc compile`.
const std::regex& InsnRe() {
  static const std::regex re(R"(^(\d+): (\(|<invalid))");
  return re;
}
const std::regex& StateRe() {
  static const std::regex re(R"(^(\d+): R\d|^(\d+):$)");
  return re;
}
const std::regex& SourceRe() {
  static const std::regex re(R"(^; (.*) @ (\S+):(\d+)$)");
  return re;
}

// Lines that are bookkeeping, not part of the error.
bool IsTrailer(std::string_view l) {
  return l.empty() || StartsWith(l, "processed ") || StartsWith(l, "verification time") ||
         StartsWith(l, "stack depth") || StartsWith(l, "-- END PROG LOAD LOG") ||
         StartsWith(l, "libbpf: ") || StartsWith(l, "mark_precise") || StartsWith(l, "Func#") ||
         StartsWith(l, "cur state:") || StartsWith(l, "old state:");
}

bool IsPlainMessage(std::string_view l) {
  const std::string s(l);
  return !l.empty() && !std::regex_search(s, InsnRe()) && !std::regex_search(s, StateRe()) &&
         !StartsWith(l, ";") && !StartsWith(l, "from ") && !StartsWith(l, "last_idx") &&
         !StartsWith(l, "parent ") && !StartsWith(l, "regs=") && !IsTrailer(l) &&
         !StartsWith(l, "Live regs") && !StartsWith(l, "Validating ");
}

// The structured report: sections introduced by an unindented "Name:" line, contents indented.
void ParseStructured(const std::vector<std::string_view>& lines, ParsedVerifierLog& out) {
  static const std::regex kPlace(R"(^\s+(\S+) @ (\S+):(\d+):(\d+)$)");
  static const std::regex kMarkedInsn(R"(^\s*>>>\s+(\d+) \| )");
  static const std::regex kCaret(R"(^\s+\|\s+\^-- (.*)$)");
  static const std::regex kCaretMore(R"(^\s+\|\s{2,}(\S.*)$)");
  enum { kNone, kReason, kAt, kPath, kSuggestion } section = kNone;
  bool in_instructions = false;
  std::smatch m;
  for (std::string_view raw : lines) {
    const std::string line(raw);
    if (StartsWith(raw, "Verification failed:")) {
      out.structured = true;
      out.category = std::string(Trim(raw.substr(strlen("Verification failed:"))));
      section = kNone;
      continue;
    }
    if (!out.structured) continue;
    if (raw == "Reason:") { section = kReason; continue; }
    if (raw == "At:") { section = kAt; in_instructions = false; continue; }
    if (raw == "Causal path:") { section = kPath; in_instructions = false; continue; }
    if (raw == "Suggestion:") { section = kSuggestion; continue; }
    if (raw.empty()) {
      if (section == kReason || section == kSuggestion) section = kNone;
      continue;
    }
    if (raw[0] != ' ') {  // an unindented line ends the section ("processed ...")
      section = kNone;
      continue;
    }
    const std::string_view text = Trim(raw);
    switch (section) {
      case kReason:
        out.structured_reason += (out.structured_reason.empty() ? "" : " ") + std::string(text);
        break;
      case kSuggestion:
        out.suggestion += (out.suggestion.empty() ? "" : " ") + std::string(text);
        break;
      case kAt:
        if (std::regex_match(line, m, kPlace) && !out.has_source) {
          out.has_source = true;
          out.source.file = m[2];
          out.source.line = ToU32(m[3]);
          out.source.column = ToU32(m[4]);
        } else if (StartsWith(text, "Instruction context:")) {
          in_instructions = true;
        } else if (in_instructions && std::regex_search(line, m, kMarkedInsn)) {
          out.insn = ToInt(m[1]);
          out.insn_text = std::string(Trim(text.substr(3)));
        }
        break;
      case kPath:
        if (std::regex_match(line, m, kPlace)) {
          VerifierPathStep step;
          step.function = m[1];
          step.place.file = m[2];
          step.place.line = ToU32(m[3]);
          step.place.column = ToU32(m[4]);
          out.causal_path.push_back(step);
          in_instructions = false;
        } else if (StartsWith(text, "Instruction context:")) {
          in_instructions = true;
        } else if (!out.causal_path.empty() && !in_instructions) {
          if (std::regex_match(line, m, kCaret)) {
            out.causal_path.back().what = m[1];
          } else if (!out.causal_path.back().what.empty() &&
                     std::regex_match(line, m, kCaretMore) && line.find(" | ") == std::string::npos) {
            out.causal_path.back().what += " " + m[1].str();
          }
        }
        break;
      case kNone:
        break;
    }
  }
}

}  // namespace

std::string LogTail(std::string_view log, size_t max_bytes) {
  if (log.size() <= max_bytes) return std::string(log);
  std::string_view tail = log.substr(log.size() - max_bytes);
  const size_t nl = tail.find('\n');
  if (nl != std::string_view::npos && nl + 1 < tail.size()) tail.remove_prefix(nl + 1);
  return std::string(tail);
}

ParsedVerifierLog ParseVerifierLog(std::string_view log) {
  ParsedVerifierLog out;
  const std::vector<std::string_view> lines = SplitLines(log);
  ParseStructured(lines, out);

  // Classic: skip the trailer, then collect the message block (before the structured report).
  int i = static_cast<int>(lines.size()) - 1;
  for (int k = 0; k < static_cast<int>(lines.size()); ++k) {
    if (StartsWith(lines[k], "Verification failed:")) {
      i = k - 1;
      break;
    }
  }
  while (i >= 0 && IsTrailer(lines[i])) --i;
  int msg_end = i;
  while (i >= 0 && IsPlainMessage(lines[i])) --i;
  int msg_begin = i + 1;
  {
    std::string reason;
    for (int k = msg_begin; k <= msg_end; ++k)
      reason += (reason.empty() ? "" : "\n") + std::string(lines[k]);
    // Some messages are printed on the instruction's own line, e.g.
    // "6: (56) if w1 != 0x3039 goto pc-2 infinite loop detected at insn 5".
    if (reason.empty() && msg_end >= 0) {
      const std::string last(lines[msg_end]);
      std::smatch em;
      static const std::regex kEmbedded(
          R"((infinite loop detected at insn \d+|back-edge from insn \d+ to \d+))");
      if (std::regex_search(last, em, InsnRe()) && std::regex_search(last, em, kEmbedded)) {
        reason = em[1];
        out.insn_text = last.substr(0, static_cast<size_t>(em.position(1)));
        msg_begin = msg_end;  // search for the instruction from this line on
        msg_begin++;
      }
    }
    out.reason = reason.empty() ? out.structured_reason : reason;
  }
  // The failing instruction: an explicit "at insn N" in the message wins over the last insn line.
  std::smatch m;
  if (out.insn < 0 && std::regex_search(out.reason, m, std::regex(R"(at insn (\d+))"))) {
    out.insn = ToInt(m[1]);
  }
  int insn_line = -1;
  for (int k = msg_begin - 1; k >= 0; --k) {
    const std::string s(lines[k]);
    if (std::regex_search(s, m, InsnRe())) {
      if (out.insn < 0 || ToInt(m[1]) == out.insn) {
        insn_line = k;
        if (out.insn < 0) out.insn = ToInt(m[1]);
        out.insn_text = s;
        break;
      }
    }
  }
  if (insn_line < 0 && out.insn >= 0) {
    // "infinite loop detected at insn N": find that instruction's last printing.
    const std::string prefix = std::to_string(out.insn) + ": (";
    for (int k = msg_begin - 1; k >= 0; --k) {
      if (StartsWith(lines[k], prefix)) {
        insn_line = k;
        out.insn_text = std::string(lines[k]);
        break;
      }
    }
  }
  // The classic annotation gives the line text; the structured At: line (already parsed) the
  // column. Take the text from the annotation for the same line.
  for (int k = insn_line >= 0 ? insn_line : msg_begin - 1; out.has_source && k >= 0; --k) {
    const std::string s(lines[k]);
    if (std::regex_match(s, m, SourceRe())) {
      if (ToU32(m[3]) == out.source.line) out.source.text = m[1];
      break;
    }
  }
  if (!out.has_source) {
    for (int k = insn_line >= 0 ? insn_line : msg_begin - 1; k >= 0; --k) {
      const std::string s(lines[k]);
      if (std::regex_match(s, m, SourceRe())) {
        out.has_source = true;
        out.source.text = m[1];
        out.source.file = m[2];
        out.source.line = ToU32(m[3]);
        break;
      }
    }
  }
  return out;
}

}  // namespace uringc
