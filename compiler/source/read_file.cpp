// See read_file.h.
#include "source/read_file.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace uringc {

bool ReadSourceFile(const std::string& path, std::string& text, std::string& error) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    error = "`" + path + "` is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open `" + path + "`";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    error = "cannot read `" + path + "`";
    return false;
  }
  text = ss.str();
  if (text.size() > (1u << 30)) {
    error = "`" + path + "` is larger than 1 GiB";
    return false;
  }
  return true;
}

}  // namespace uringc
