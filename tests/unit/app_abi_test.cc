// Which app ABI versions the runtime takes (src/runtime/app_abi.h): the current one and
// version 3 as they are (3 differs only in what the framer and handler may use: the frame
// note), version 2 without its protocol (its struct ends before it), any other refused
// with a message that names the range.
#include "runtime/app_abi.h"

#include <gtest/gtest.h>

namespace quanta {
namespace {

void handle(const quanta_request*, quanta_response*) {}

const quanta_protocol kProtocol = {"p", nullptr, nullptr, nullptr, QUANTA_DATAGRAM_PLAIN, 0};

quanta_app app_of(uint32_t version) {
  quanta_app a{};
  a.abi_version = version;
  a.name = "abi";
  a.handle_request = handle;
  a.protocol = &kProtocol;
  return a;
}

TEST(AppAbi, TheCurrentVersionAndVersionThreeAreTakenWhole) {
  for (const uint32_t version : {QUANTA_APP_ABI_VERSION, 3u}) {
    quanta_app out{};
    EXPECT_EQ(read_app_abi(app_of(version), out), "") << version;
    EXPECT_EQ(out.abi_version, QUANTA_APP_ABI_VERSION);
    EXPECT_EQ(out.handle_request, &handle);
    EXPECT_EQ(out.protocol, &kProtocol);
  }
}

TEST(AppAbi, VersionTwoIsTakenWithoutItsProtocol) {
  quanta_app out{};
  EXPECT_EQ(read_app_abi(app_of(2), out), "");
  EXPECT_EQ(out.abi_version, QUANTA_APP_ABI_VERSION);
  EXPECT_EQ(out.handle_request, &handle);
  EXPECT_EQ(out.protocol, nullptr);
}

TEST(AppAbi, OtherVersionsAreRefusedNamingTheRange) {
  for (const uint32_t version : {0u, 1u, QUANTA_APP_ABI_VERSION + 1, 99u}) {
    quanta_app out{};
    const std::string why = read_app_abi(app_of(version), out);
    EXPECT_NE(why.find("version " + std::to_string(version)), std::string::npos) << why;
    EXPECT_NE(why.find("versions 2 to " + std::to_string(QUANTA_APP_ABI_VERSION)), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace quanta
