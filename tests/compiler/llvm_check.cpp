// The check matcher of llvm_check.h. Each pattern becomes one std::regex (literal text escaped,
// `{{RE}}` as a group, `[[NAME:RE]]` as a capture, `[[NAME]]` as the bound text or, bound on the
// same line, a backreference); a check is searched line by line from where the previous one
// matched, so checks stay valid when unrelated IR is added around what they match.
#include "llvm_check.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <sstream>

namespace uringc::testing {
namespace {

constexpr std::pair<const char*, LlvmCheck::Kind> kPrefixes[] = {
    {"// LLVM:", LlvmCheck::Kind::kCheck},
    {"// LLVM-NEXT:", LlvmCheck::Kind::kNext},
    {"// LLVM-NOT:", LlvmCheck::Kind::kNot},
};

const char* KindName(LlvmCheck::Kind k) {
  switch (k) {
    case LlvmCheck::Kind::kCheck: return "LLVM";
    case LlvmCheck::Kind::kNext: return "LLVM-NEXT";
    case LlvmCheck::Kind::kNot: return "LLVM-NOT";
  }
  return "LLVM";
}

std::string Quote(const LlvmCheck& c) {
  return "`// " + std::string(KindName(c.kind)) + ": " + c.pattern + "`";
}

// Capturing groups a regex opens: `(` not escaped, not in a bracket expression, not `(?`.
size_t CountGroups(const std::string& re) {
  size_t n = 0;
  bool in_class = false;
  for (size_t i = 0; i < re.size(); ++i) {
    if (re[i] == '\\') {
      ++i;
    } else if (in_class) {
      in_class = re[i] != ']';
    } else if (re[i] == '[') {
      in_class = true;
    } else if (re[i] == '(' && (i + 1 == re.size() || re[i + 1] != '?')) {
      ++n;
    }
  }
  return n;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (std::string("\\^$.|?*+()[]{}").find(ch) != std::string::npos) out += '\\';
    out += ch;
  }
  return out;
}

bool IsName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  });
}

struct Pattern {
  std::regex re;
  std::vector<std::pair<std::string, size_t>> binds;  // variable, capture group
  std::string literal;  // its longest literal run: a line without it cannot match
  std::vector<std::string> words;  // its literal words, to find the closest line on failure
};

// Compiles `c.pattern` with the variables bound so far; "" or what is wrong with it.
std::string Compile(const LlvmCheck& c, const std::map<std::string, std::string>& vars,
                    Pattern& out) {
  const std::string& p = c.pattern;
  std::string re, run, text;
  size_t groups = 0;
  std::map<std::string, size_t> local;
  auto end_run = [&] {
    if (run.size() > out.literal.size()) out.literal = run;
    run.clear();
    text += ' ';
  };
  for (size_t i = 0; i < p.size();) {
    if (p.compare(i, 2, "{{") == 0) {
      const size_t close = p.find("}}", i + 2);
      if (close == std::string::npos) return "`{{` without `}}`";
      const std::string inner = p.substr(i + 2, close - i - 2);
      re += "(?:" + inner + ")";
      groups += CountGroups(inner);
      end_run();
      i = close + 2;
    } else if (p.compare(i, 2, "[[") == 0) {
      const size_t close = p.find("]]", i + 2);
      if (close == std::string::npos) return "`[[` without `]]`";
      const std::string inner = p.substr(i + 2, close - i - 2);
      const size_t colon = inner.find(':');
      const std::string name = inner.substr(0, colon);
      if (!IsName(name)) return "`[[" + inner + "]]` does not start with a variable name";
      if (colon != std::string::npos) {
        const std::string sub = inner.substr(colon + 1);
        re += "(" + sub + ")";
        local[name] = ++groups;
        out.binds.emplace_back(name, groups);
        groups += CountGroups(sub);
        end_run();
      } else if (auto it = local.find(name); it != local.end()) {
        re += "\\" + std::to_string(it->second);
        end_run();
      } else if (auto v = vars.find(name); v != vars.end()) {
        re += Escape(v->second);
        run += v->second;
        text += v->second;
      } else {
        return "`[[" + name + "]]` is used before a check binds it";
      }
      i = close + 2;
    } else {
      re += Escape(std::string(1, p[i]));
      run += p[i];
      text += p[i];
      ++i;
    }
  }
  end_run();
  try {
    out.re = std::regex(re, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return std::string("not a valid regex: ") + e.what();
  }
  std::istringstream words(text);
  for (std::string w; words >> w;) out.words.push_back(w);
  return "";
}

bool Matches(const Pattern& p, const std::string& line, std::smatch* m = nullptr) {
  if (line.find(p.literal) == std::string::npos) return false;
  std::smatch local;
  return std::regex_search(line, m ? *m : local, p.re);
}

// The failure report: what failed, then where, the variables and the IR near `at`.
class Report {
 public:
  Report(const std::vector<std::string>& lines, const std::string& file,
         const std::map<std::string, std::string>& vars)
      : lines_(lines), file_(file), vars_(vars) {}

  std::string Failed(const LlvmCheck& c, const std::string& what, size_t at,
                     const std::string& detail) {
    std::ostringstream o;
    o << file_ << ":" << c.line << ": " << Quote(c) << " " << what << "\n";
    if (!detail.empty()) o << detail;
    if (!vars_.empty()) {
      o << "  variables:";
      for (const auto& [k, v] : vars_) o << " " << k << "=" << v;
      o << "\n";
    }
    const size_t from = at >= 3 ? at - 3 : 0;
    const size_t to = std::min(lines_.size(), at + 12);
    o << "  the IR around IR line " << at + 1 << ":\n";
    for (size_t i = from; i < to; ++i) {
      o << (i == at ? "  > " : "    ") << i + 1 << " | " << lines_[i] << "\n";
    }
    if (at >= lines_.size()) o << "  > (end of the IR, " << lines_.size() << " lines)\n";
    return o.str();
  }

  std::string Line(size_t i) const { return std::to_string(i + 1) + ": " + lines_[i]; }

 private:
  const std::vector<std::string>& lines_;
  const std::string& file_;
  const std::map<std::string, std::string>& vars_;
};

}  // namespace

std::vector<LlvmCheck> ParseLlvmChecks(const std::string& file_text, std::string& error) {
  std::vector<LlvmCheck> out;
  std::istringstream in(file_text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    for (const auto& [prefix, kind] : kPrefixes) {
      if (line.rfind(prefix, 0) != 0) continue;
      std::string p = line.substr(std::string(prefix).size());
      p.erase(0, p.find_first_not_of(" \t"));
      p.erase(p.find_last_not_of(" \t\r") + 1);
      if (p.empty()) {
        error = std::to_string(n) + ": `" + prefix + "` with an empty pattern";
        return {};
      }
      if (kind == LlvmCheck::Kind::kNext &&
          (out.empty() || out.back().kind == LlvmCheck::Kind::kNot)) {
        error = std::to_string(n) + ": `// LLVM-NEXT:` needs an `// LLVM:` or `// LLVM-NEXT:` " +
                "line right before it";
        return {};
      }
      out.push_back(LlvmCheck{kind, p, n});
    }
  }
  return out;
}

std::string MatchLlvmChecks(const std::vector<LlvmCheck>& checks, const std::string& ir,
                            const std::string& file) {
  std::vector<std::string> lines;
  std::istringstream in(ir);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // Every pattern compiles, and uses only variables an earlier check (or itself, earlier on the
  // line) binds: found here, before any matching, with placeholder values.
  {
    std::map<std::string, std::string> defined;
    for (const LlvmCheck& c : checks) {
      Pattern p;
      if (std::string e = Compile(c, defined, p); !e.empty()) {
        return file + ":" + std::to_string(c.line) + ": " + Quote(c) + ": " + e + "\n";
      }
      for (const auto& [name, group] : p.binds) defined[name] = "x";
    }
  }
  std::map<std::string, std::string> vars;
  Report report(lines, file, vars);
  size_t pos = 0;                        // the first IR line the next check may match
  const LlvmCheck* prev = nullptr;       // the last positive check, matched at IR line pos - 1
  std::vector<std::pair<const LlvmCheck*, Pattern>> nots;  // since prev
  auto since = [&] {
    return prev ? "  the search started after IR line " + std::to_string(pos) +
                      ", where the previous check (line " + std::to_string(prev->line) +
                      ") matched\n"
                : std::string("  the search started at the first IR line\n");
  };
  // The LLVM-NOT checks pending since prev, over IR lines [pos, end).
  auto check_nots = [&](size_t end, const LlvmCheck* next) -> std::string {
    for (const auto& [c, p] : nots) {
      for (size_t i = pos; i < end; ++i) {
        if (!Matches(p, lines[i])) continue;
        return report.Failed(*c, "matches IR line " + std::to_string(i + 1), i,
                             since() + (next ? "  and before the match of line " +
                                                   std::to_string(next->line) + ", IR line " +
                                                   std::to_string(end + 1) + "\n"
                                             : std::string("  up to the end of the IR\n")));
      }
    }
    nots.clear();
    return "";
  };
  for (size_t i = 0; i < checks.size();) {
    const LlvmCheck& c = checks[i];
    if (c.kind == LlvmCheck::Kind::kNot) {
      Pattern p;
      Compile(c, vars, p);
      nots.emplace_back(&c, std::move(p));
      ++i;
      continue;
    }
    // A `// LLVM:` line and the LLVM-NEXT lines after it: the first place from pos where all
    // of them match consecutive lines.
    size_t end = i + 1;
    while (end < checks.size() && checks[end].kind == LlvmCheck::Kind::kNext) ++end;
    Pattern head;
    Compile(c, vars, head);
    size_t found = lines.size(), best_at = 0, best_depth = 0;
    std::map<std::string, std::string> bound, best_vars;
    for (size_t at = pos; at < lines.size() && found == lines.size(); ++at) {
      std::smatch m;
      if (!Matches(head, lines[at], &m)) continue;
      std::map<std::string, std::string> try_vars = vars;
      for (const auto& [name, group] : head.binds) try_vars[name] = m[group].str();
      size_t depth = 1;
      for (; i + depth < end && at + depth < lines.size(); ++depth) {
        Pattern next;
        Compile(checks[i + depth], try_vars, next);
        if (!Matches(next, lines[at + depth], &m)) break;
        for (const auto& [name, group] : next.binds) try_vars[name] = m[group].str();
      }
      if (i + depth == end) {
        found = at;
        bound = std::move(try_vars);
      } else if (depth > best_depth) {
        best_at = at, best_depth = depth;
        best_vars = std::move(try_vars);
      }
    }
    if (found == lines.size()) {
      if (best_depth > 0) {
        const size_t at = best_at + best_depth;
        const LlvmCheck& failed = checks[i + best_depth];
        vars = std::move(best_vars);  // as bound where it failed, for the report
        return report.Failed(failed, "does not match IR line " + std::to_string(at + 1), at,
                             since() + "  the line right after the match of line " +
                                 std::to_string(checks[i + best_depth - 1].line) + " (IR line " +
                                 std::to_string(at) + "), where the lines from line " +
                                 std::to_string(c.line) + " on matched farthest\n");
      }
      std::string detail = since();
      for (size_t k = 0; k < pos; ++k) {
        if (!Matches(head, lines[k])) continue;
        detail += "  it matches IR line " + std::to_string(k + 1) +
                  ", before the search started: are the checks in the IR's order?\n";
        break;
      }
      size_t best = pos, score = 0;
      for (size_t k = pos; k < lines.size(); ++k) {
        size_t s = 0;
        for (const std::string& w : head.words) s += lines[k].find(w) != std::string::npos;
        if (s > score) best = k, score = s;
      }
      if (score > 0) detail += "  the closest IR line after it: " + report.Line(best) + "\n";
      return report.Failed(c, "matches no IR line after IR line " + std::to_string(pos), pos,
                           detail);
    }
    if (std::string e = check_nots(found, &c); !e.empty()) return e;
    vars = std::move(bound);
    prev = &checks[end - 1];
    pos = found + (end - i);
    i = end;
  }
  return check_nots(lines.size(), nullptr);
}

}  // namespace uringc::testing
