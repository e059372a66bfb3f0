// The single formatter for diagnostics. Text form follows clang: location, severity, message, kind
// in brackets, then the line and a caret range (tabs kept so the marker lines up).
#include "uringc/diag/formatter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

namespace uringc {
namespace {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}

std::string Location(const SourceRange& r, const SourceManager& sources) {
  const SourceFile* f = sources.Get(r.file);
  if (!f) return "uringc";
  LineCol lc = f->LineColOf(r.begin);
  return EscapeForTerminal(f->name()) + ":" + std::to_string(lc.line) + ":" +
         std::to_string(lc.column);
}

// Bytes [i, i + n) of `s` hold one character: a byte, or a whole UTF-8 sequence (its code point
// in `cp`). n is 1 for an invalid byte (cp is then -1).
size_t NextChar(std::string_view s, size_t i, int32_t& cp) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  const size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) {
    cp = -1;
    return 1;
  }
  int32_t v = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) {
      cp = -1;
      return 1;
    }
    v = (v << 6) | (b & 0x3f);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  const int32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (v < min || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff) {
    cp = -1;
    return 1;
  }
  cp = v;
  return n;
}

// A terminal acts on control characters (ESC starts a sequence that can rewrite the screen),
// on C1 controls and on the bidirectional overrides that make text read differently from what
// the compiler sees; such characters are shown as `<U+001B>`, a byte that is not UTF-8 as
// `<FF>` (as clang does). Tabs stay; `keep_newlines` keeps line breaks (messages, not lines).
bool Unsafe(int32_t cp, bool keep_newlines) {
  if (cp == '\t' || (cp == '\n' && keep_newlines)) return false;
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

// Appends the character at s[i] as shown (escaped when unsafe); returns its byte length and sets
// `width` to the columns it takes (1 for every character that is shown as itself).
size_t AppendShown(std::string& out, std::string_view s, size_t i, bool keep_newlines,
                   uint32_t& width) {
  int32_t cp;
  const size_t n = NextChar(s, i, cp);
  char buf[16];
  if (cp < 0) {
    std::snprintf(buf, sizeof(buf), "<%02X>", static_cast<unsigned char>(s[i]));
  } else if (Unsafe(cp, keep_newlines)) {
    std::snprintf(buf, sizeof(buf), "<U+%04X>", static_cast<unsigned>(cp));
  } else {
    out.append(s.substr(i, n));
    width = 1;
    return n;
  }
  out += buf;
  width = static_cast<uint32_t>(std::strlen(buf));
  return n;
}

// The source line and a marker under [begin, end), clipped to the first line of the range. The
// marker follows the line as shown: a tab under a tab, one column per character, as many as an
// escaped character takes.
std::string Snippet(const SourceRange& r, const SourceManager& sources) {
  const SourceFile* f = sources.Get(r.file);
  if (!f) return "";
  LineCol lc = f->LineColOf(r.begin);
  std::string_view line = f->Line(lc.line);
  const size_t start = std::min<size_t>(lc.column - 1, line.size());
  const size_t len = r.end > r.begin ? r.end - r.begin : 1;
  const size_t last = std::min<size_t>(start + len, std::max<size_t>(line.size(), start + 1));
  std::string shown, marker;
  bool caret = false;
  for (size_t i = 0; i < line.size();) {
    uint32_t width = 0;
    const size_t n = AppendShown(shown, line, i, /*keep_newlines=*/false, width);
    if (i + n <= start) {
      marker.append(width, line[i] == '\t' ? '\t' : ' ');
    } else if (i < last) {
      marker += caret ? '~' : '^';
      marker.append(width - 1, '~');
      caret = true;
    }
    i += n;
  }
  if (!caret) marker += '^';
  return shown + "\n" + marker + "\n";
}

// The place of a range as JSON members (file "" and line 0 when it has none).
void AddJsonPlace(nlohmann::ordered_json& j, const SourceRange& r, const SourceManager& sources) {
  const SourceFile* f = sources.Get(r.file);
  LineCol b = f ? f->LineColOf(r.begin) : LineCol{};
  LineCol e = f ? f->LineColOf(r.end) : LineCol{};
  j["file"] = f ? f->name() : "";
  j["line"] = b.line;
  j["column"] = b.column;
  j["end_line"] = e.line;
  j["end_column"] = e.column;
}

// JSON is written ASCII-only (every other character as a \u escape), so it is valid UTF-8
// whatever the source held (a byte that is not UTF-8 becomes U+FFFD) and safe to print on a
// terminal: control characters and bidirectional overrides are escapes too.
std::string DumpJson(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t width;
    i += AppendShown(out, text, i, /*keep_newlines=*/true, width);
  }
  return out;
}

std::string FormatText(const Diagnostic& d, const SourceManager& sources) {
  std::string out = Location(d.range, sources) + ": " + SeverityName(d.severity) + ": " +
                    EscapeForTerminal(d.message) + " [" + std::string(DiagKindName(d.kind)) +
                    "]\n" + Snippet(d.range, sources);
  for (const DiagnosticNote& n : d.notes) {
    out += Location(n.range, sources) + ": note: " + EscapeForTerminal(n.message) + "\n" +
           Snippet(n.range, sources);
  }
  return out;
}

std::string FormatJson(const std::vector<Diagnostic>& ds, const SourceManager& sources) {
  // One diagnostic a line: "[\n{...},\n{...}\n]\n", easy to read and to grep.
  std::string out = "[";
  for (size_t i = 0; i < ds.size(); ++i) {
    const Diagnostic& d = ds[i];
    nlohmann::ordered_json j;
    AddJsonPlace(j, d.range, sources);
    j["severity"] = SeverityName(d.severity);
    j["kind"] = DiagKindName(d.kind);
    j["message"] = d.message;
    j["notes"] = nlohmann::ordered_json::array();
    for (const DiagnosticNote& n : d.notes) {
      nlohmann::ordered_json note;
      AddJsonPlace(note, n.range, sources);
      note["message"] = n.message;
      j["notes"].push_back(std::move(note));
    }
    out += (i ? ",\n" : "\n") + DumpJson(j);
  }
  out += ds.empty() ? "]\n" : "\n]\n";
  return out;
}

}  // namespace uringc
