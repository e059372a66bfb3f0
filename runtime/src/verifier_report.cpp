// Verifier failure -> Diagnostic: classification by message, location by log annotation and line
// table, source text from the file on disk or, failing that, from the line text in BTF.
#include "uringc/verifier_report.h"

#include <algorithm>
#include <regex>

#include "uringc/diag/formatter.h"
#include "source/read_file.h"

namespace uringc {
namespace {

bool Has(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The line-table entry for the failure: the annotation's file and line (the kernel prints a
// basename), preferring the record at or before the failing instruction in the program's section.
const LineInfo* FindLine(const std::vector<LineInfo>& lines, const std::string& section,
                         const ParsedVerifierLog& p) {
  const LineInfo* best = nullptr;
  if (p.has_source) {
    for (const LineInfo& li : lines) {
      if (li.line != p.source.line || Basename(li.file) != Basename(p.source.file)) continue;
      if (p.source.column && li.column == p.source.column) return &li;  // structured: exact
      if (!best) best = &li;
      const bool same_sec = li.section == section;
      if (same_sec && p.insn >= 0 && li.insn <= static_cast<uint32_t>(p.insn) &&
          (best->section != section || best->insn > static_cast<uint32_t>(p.insn) ||
           li.insn > best->insn)) {
        best = &li;
      }
    }
    return best;
  }
  if (p.insn < 0) return nullptr;
  for (const LineInfo& li : lines) {
    if (li.section != section || li.insn > static_cast<uint32_t>(p.insn)) continue;
    if (!best || li.insn >= best->insn) best = &li;
  }
  return best;
}

// The object names its source files; only a regular file within the compiler's size limit is
// read (an object naming /dev/zero or a FIFO must not hang or exhaust the runtime).
std::string ReadFile(const std::string& path) {
  std::string text, error;
  ReadSourceFile(path, text, error);
  return text;
}

// Registers the source file and returns a range at line:col. Falls back to a text made of the
// one known line when the file is not on disk.
struct SourceCache {
  SourceManager* sources;
  const std::vector<LineInfo>* lines;
  const SourceTexts* texts;
  std::vector<std::pair<std::string, uint32_t>> ids;  // file -> id
};

uint32_t AddSource(SourceCache& cache, const std::string& file, uint32_t line,
                   const std::string& line_text);
SourceRange RangeAt(const SourceManager& sources, uint32_t id, uint32_t line, uint32_t column);

SourceRange PlaceRange(SourceCache& cache, const std::string& file, uint32_t line,
                       uint32_t column, const std::string& line_text) {
  SourceManager& sources = *cache.sources;
  uint32_t id = 0;
  for (auto& [name, known] : cache.ids)
    if (name == file) id = known;
  if (id) {
    const SourceFile* f = sources.Get(id);
    if (line == 0 || line > f->LineCount()) id = 0;
  }
  if (!id) {
    id = AddSource(cache, file, line, line_text);
    cache.ids.emplace_back(file, id);
  }
  // A line past what could be rebuilt (kMaxRebuiltLines) has no place.
  if (line == 0 || line > sources.Get(id)->LineCount()) return SourceRange{};
  return RangeAt(sources, id, line, column);
}

constexpr uint32_t kMaxRebuiltLines = 1 << 20;

uint32_t AddSource(SourceCache& cache, const std::string& file, uint32_t line,
                   const std::string& line_text) {
  SourceManager& sources = *cache.sources;
  const auto given = std::find_if(cache.texts->begin(), cache.texts->end(),
                                  [&](const auto& t) { return t.first == file; });
  std::string text = given != cache.texts->end() ? given->second : ReadFile(file);
  bool real = !text.empty();
  if (real && given == cache.texts->end()) {
    // The file changed since the object was built when the line no longer matches.
    SourceFile probe(file, text);
    if (line > probe.LineCount() ||
        (!line_text.empty() && probe.Line(line).find(line_text.substr(0, 20)) ==
                                   std::string_view::npos)) {
      real = false;
    }
  }
  if (!real) {
    // Rebuild what can be known of the file from the line texts the compiler put into BTF: a
    // newline per line up to the last one known, and the known texts, with no newline of their
    // own, in their places. Line numbers come from the object (up to 2^22) and each file of a
    // report is rebuilt once per place: at most kMaxRebuiltLines lines keeps that small.
    const uint32_t last = std::min(line, kMaxRebuiltLines);
    std::vector<std::pair<uint32_t, std::string_view>> known;
    if (line == last && !line_text.empty()) known.emplace_back(line, line_text);
    for (const LineInfo& li : *cache.lines) {
      if (li.file == file && li.line != 0 && li.line <= kMaxRebuiltLines && !li.text.empty())
        known.emplace_back(li.line, li.text);
    }
    std::stable_sort(known.begin(), known.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    text.clear();
    uint32_t at = 1;
    for (const auto& [n, t] : known) {
      if (n < at) continue;  // line 0, or a line already written
      text.append(n - at, '\n');
      for (char c : t) text += c == '\n' || c == '\r' ? ' ' : c;
      text += '\n';
      at = n + 1;
    }
    if (at <= last) text.append(last - at + 1, '\n');
  }
  return sources.Add(file, text);
}

SourceRange RangeAt(const SourceManager& sources, uint32_t id, uint32_t line, uint32_t column) {
  const SourceFile* f = sources.Get(id);
  const std::string_view l = f->Line(line);
  const uint32_t begin = l.data() ? static_cast<uint32_t>(l.data() - f->text().data()) : 0;
  const uint32_t col = column > 0 && column <= l.size() ? column - 1 : 0;
  // Mark up to the end of the token that starts at the column.
  uint32_t len = 0;
  while (col + len < l.size() && (isalnum(static_cast<unsigned char>(l[col + len])) ||
                                   l[col + len] == '_'))
    ++len;
  return SourceRange{id, begin + col, begin + col + (len ? len : 1)};
}

}  // namespace

bool IsCompiledSource(std::string_view file) {
  constexpr std::string_view kExt = ".uring";
  return file.size() > kExt.size() && file.substr(file.size() - kExt.size()) == kExt;
}

VerifierHint ClassifyVerifierReason(const std::string& r) {
  if (Has(r, "wasn't resolved") || Has(r, "not found in kernel") ||
      Has(r, "invalid kernel function") || Has(r, "kernel btf_id") ||
      Has(r, "is not a kfunc") || Has(r, "invalid kfunc")) {
    return {DiagKind::kUnknownKfunc,
            "the program calls a kernel function (kfunc) this kernel does not have",
            "check the kfunc's name and the kernel version; declare it `__weak` and test "
            "`bpf_ksym_exists()` to make it optional"};
  }
  if (Has(r, "must be sleepable") || Has(r, "sleepable kfunc") ||
      (Has(r, "sleepable") && Has(r, "non-sleepable"))) {
    return {DiagKind::kSleepableKfunc,
            "a sleepable kfunc (such as bpf_io_uring_submit_sqes) is called from a program "
            "that is not sleepable",
            "put the program in `SEC(\"struct_ops.s/...\")` (note the `.s`) so it is loaded "
            "sleepable"};
  }
  if (Has(r, "too complex") || Has(r, "program is too large") || Has(r, "too many states") ||
      Has(r, "complexity limit")) {
    return {DiagKind::kTooComplex,
            "the verifier gave up: exploring every path of the program exceeded its limit "
            "(1 million instructions or 8192 pending branches)",
            "reduce the branches inside loops, lower constant loop bounds, or move work into a "
            "bounded `bpf_loop`/separate loop_step calls"};
  }
  if (Has(r, "infinite loop") || Has(r, "back-edge") || Has(r, "unbounded loop") ||
      Has(r, "loop detected")) {
    return {DiagKind::kUnboundedLoop, "the verifier cannot prove that a loop ends",
            "give the loop a constant upper bound (`for (i = 0; i < N && ...; i++)`) or make the "
            "exit condition depend on a value that changes every iteration"};
  }
  if (Has(r, "_or_null") || Has(r, "null-check") || Has(r, "may be NULL")) {
    return {DiagKind::kMissingNullCheck,
            "a pointer that may be NULL is used without checking it first "
            "(bpf_io_uring_get_region returns NULL when the region is smaller than asked)",
            "test the pointer (`if (!p) return IOU_LOOP_STOP;`) before using it"};
  }
  if (Has(r, "invalid access to memory") || Has(r, "outside of the allowed memory range") ||
      Has(r, "unbounded memory access") || Has(r, "invalid access to map value") ||
      Has(r, "min value is negative") || Has(r, "invalid mem access") ||
      Has(r, "out of bounds")) {
    std::string plain = "an access falls outside the memory the verifier knows about";
    std::smatch m;
    if (std::regex_search(r, m, std::regex(R"(mem_size=(\d+) off=(-?\d+) size=(\d+))"))) {
      plain = "the access at offset " + m[2].str() + " (" + m[3].str() +
              " bytes) is outside the region, which is " + m[1].str() + " bytes long";
    }
    return {DiagKind::kRegionOutOfBounds, plain,
            "bound the offset against the size passed to bpf_io_uring_get_region (mask ring "
            "indices with `entries - 1` and check `off + size <= region_size`)"};
  }
  return {DiagKind::kVerifierRejected, "the BPF verifier rejected the program",
          "read the verifier log (--verifier-log=FILE) around the failing instruction"};
}

VerifierReport BuildVerifierReport(const std::string& program, const std::string& section,
                                   int error, std::string log, const std::vector<LineInfo>& lines,
                                   const SourceTexts& texts) {
  VerifierReport rep;
  rep.program = program;
  rep.section = section;
  rep.error = error;
  rep.log = std::move(log);
  rep.parsed = ParseVerifierLog(rep.log);
  rep.hint = ClassifyVerifierReason(rep.parsed.reason + "\n" + rep.parsed.structured_reason +
                                    "\n" + rep.parsed.category);

  Diagnostic& d = rep.diagnostic;
  d.severity = Severity::kError;
  d.kind = rep.hint.kind;
  std::string first_reason = rep.parsed.reason.substr(0, rep.parsed.reason.find('\n'));
  if (first_reason.empty()) first_reason = "no message in the verifier log";
  d.message = "the kernel's verifier rejected `" + program + "`: " + rep.hint.plain +
              " (verifier: `" + first_reason + "`" +
              (rep.parsed.insn >= 0 ? ", at instruction " + std::to_string(rep.parsed.insn) : "") +
              ")";

  SourceCache cache{&rep.sources, &lines, &texts, {}};
  const LineInfo* li = FindLine(lines, section, rep.parsed);
  const std::string& failing_file = li ? li->file : rep.parsed.source.file;
  if (li) {
    d.range = PlaceRange(cache, li->file, li->line,
                         rep.parsed.source.column ? rep.parsed.source.column : li->column, li->text);
  } else if (rep.parsed.has_source) {
    d.range = PlaceRange(cache, rep.parsed.source.file, rep.parsed.source.line,
                         rep.parsed.source.column, rep.parsed.source.text);
  }
  if (!rep.parsed.structured_reason.empty() && rep.parsed.structured_reason != first_reason) {
    d.notes.push_back({SourceRange{}, "the verifier explains: " + rep.parsed.structured_reason});
  }
  // The structured format's causal path: each step as a note at its place.
  for (const VerifierPathStep& step : rep.parsed.causal_path) {
    ParsedVerifierLog at;
    at.has_source = true;
    at.source = step.place;
    const LineInfo* sl = FindLine(lines, section, at);
    const SourceRange r =
        sl ? PlaceRange(cache, sl->file, sl->line, step.place.column, sl->text)
           : PlaceRange(cache, step.place.file, step.place.line, step.place.column, "");
    d.notes.push_back({r, step.what.empty() ? "on the path to the failure" : step.what});
  }
  if (IsCompiledSource(failing_file)) {
    // uringc wrote this code: the program is fine as far as its author can tell, the compiler is
    // not. A hint for C authors ("test the pointer") would send them the wrong way.
    d.notes.push_back({SourceRange{}, kCompiledCodeRejectedHint});
  } else {
    const std::string hint =
        rep.parsed.suggestion.empty()
            ? rep.hint.hint
            : rep.hint.hint + "; the verifier suggests: " + rep.parsed.suggestion;
    d.notes.push_back({SourceRange{}, "hint: " + hint});
  }
  rep.text = FormatText(d, rep.sources);
  return rep;
}

}  // namespace uringc
