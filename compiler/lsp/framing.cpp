// See framing.h.
#include "lsp/framing.h"

#include <cctype>
#include <charconv>

namespace uringc::lsp {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

bool IsContentLength(const std::string& name) {
  static constexpr std::string_view kName = "content-length";
  if (name.size() != kName.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != kName[i]) return false;
  return true;
}

}  // namespace

ReadResult ReadMessage(std::istream& in, std::string& body, std::string& error) {
  std::string line;
  bool any_header = false;
  long long length = -1;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    any_header = true;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (!IsContentLength(Trim(line.substr(0, colon)))) continue;
    const std::string value = Trim(line.substr(colon + 1));
    long long n = -1;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 0) n = -1;
    length = n;
  }
  if (!any_header) return ReadResult::kEnd;
  if (length < 0) {
    error = "a message's headers have no valid Content-Length";
    return ReadResult::kBadHeader;
  }
  if (static_cast<unsigned long long>(length) > kMaxMessageBytes) {
    error = "a message of " + std::to_string(length) + " bytes is over the limit of " +
            std::to_string(kMaxMessageBytes) + " bytes";
    in.ignore(length);
    return ReadResult::kBadHeader;
  }
  body.assign(static_cast<size_t>(length), '\0');
  in.read(body.data(), length);
  if (in.gcount() != length) return ReadResult::kEnd;
  return ReadResult::kMessage;
}

void WriteMessage(std::ostream& out, const nlohmann::json& message) {
  const std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out << "Content-Length: " << text.size() << "\r\n\r\n" << text;
  out.flush();
}

}  // namespace uringc::lsp
