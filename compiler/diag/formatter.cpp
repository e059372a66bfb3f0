// The single formatter for diagnostics. Text form follows clang: location, severity, message, kind
// in brackets, then the line and a caret range (tabs kept so the marker lines up).
#include "diag/formatter.h"

#include <algorithm>
#include <cstdio>

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
  return f->name() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

// The source line and a marker under [begin, end), clipped to the first line of the range.
std::string Snippet(const SourceRange& r, const SourceManager& sources) {
  const SourceFile* f = sources.Get(r.file);
  if (!f) return "";
  LineCol lc = f->LineColOf(r.begin);
  std::string_view line = f->Line(lc.line);
  std::string marker;
  const uint32_t start = std::min<uint32_t>(lc.column - 1, line.size());
  for (uint32_t i = 0; i < start; ++i) marker += line[i] == '\t' ? '\t' : ' ';
  marker += '^';
  const uint32_t len = r.end > r.begin ? r.end - r.begin : 1;
  const uint32_t last = std::min<uint32_t>(start + len, std::max<uint32_t>(line.size(), start + 1));
  for (uint32_t i = start + 1; i < last; ++i) marker += '~';
  return std::string(line) + "\n" + marker + "\n";
}

void AppendJsonString(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void AppendJsonPlace(std::string& out, const SourceRange& r, const SourceManager& sources) {
  const SourceFile* f = sources.Get(r.file);
  LineCol b = f ? f->LineColOf(r.begin) : LineCol{};
  LineCol e = f ? f->LineColOf(r.end) : LineCol{};
  out += "\"file\":";
  AppendJsonString(out, f ? f->name() : "");
  out += ",\"line\":" + std::to_string(b.line) + ",\"column\":" + std::to_string(b.column);
  out += ",\"end_line\":" + std::to_string(e.line) + ",\"end_column\":" + std::to_string(e.column);
}

}  // namespace

std::string FormatText(const Diagnostic& d, const SourceManager& sources) {
  std::string out = Location(d.range, sources) + ": " + SeverityName(d.severity) + ": " +
                    d.message + " [" + d.kind + "]\n" + Snippet(d.range, sources);
  for (const DiagnosticNote& n : d.notes) {
    out += Location(n.range, sources) + ": note: " + n.message + "\n" + Snippet(n.range, sources);
  }
  return out;
}

std::string FormatJson(const std::vector<Diagnostic>& ds, const SourceManager& sources) {
  std::string out = "[";
  for (size_t i = 0; i < ds.size(); ++i) {
    const Diagnostic& d = ds[i];
    out += i ? ",\n{" : "\n{";
    AppendJsonPlace(out, d.range, sources);
    out += ",\"severity\":\"" + std::string(SeverityName(d.severity)) + "\",\"kind\":";
    AppendJsonString(out, d.kind);
    out += ",\"message\":";
    AppendJsonString(out, d.message);
    out += ",\"notes\":[";
    for (size_t j = 0; j < d.notes.size(); ++j) {
      out += j ? ",{" : "{";
      AppendJsonPlace(out, d.notes[j].range, sources);
      out += ",\"message\":";
      AppendJsonString(out, d.notes[j].message);
      out += "}";
    }
    out += "]}";
  }
  out += ds.empty() ? "]\n" : "\n]\n";
  return out;
}

}  // namespace uringc
