// GlobalTable on real objects (nop_named: plain named globals; nop_inflight: config/state structs)
// opened with libbpf on the host, and on a hand-built BTF for enums, bools and signed types.
#include "uringc/globals.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

class ObjectGlobals : public ::testing::Test {
 protected:
  void Open(const char* path) {
    object_ = bpf_object__open_file(path, nullptr);
    ASSERT_NE(object_, nullptr);
    auto t = uringc::GlobalTable::FromBtf(bpf_object__btf(object_));
    ASSERT_TRUE(t.ok()) << t.error().message;
    table_ = std::move(*t);
  }
  void TearDown() override { bpf_object__close(object_); }
  bpf_object* object_ = nullptr;
  uringc::GlobalTable table_;
};

TEST_F(ObjectGlobals, NamedGlobalsWithSectionsOffsetsAndTypes) {
  Open(URINGC_NOP_NAMED_OBJECT);
  auto inflight = table_.Find("inflight");
  ASSERT_TRUE(inflight.ok());
  EXPECT_EQ(inflight->section, ".rodata");
  EXPECT_TRUE(inflight->read_only());
  EXPECT_EQ(inflight->size, 4u);
  EXPECT_EQ(inflight->kind, uringc::ValueKind::kUnsigned);
  EXPECT_EQ(inflight->type_name, "__u32");
  auto total = table_.Find("total");
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(total->size, 8u);
  EXPECT_NE(total->offset, inflight->offset);
  auto status = table_.Find("uringc_status");
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->section, ".bss");
  EXPECT_FALSE(status->read_only());
  auto error = table_.Find("uringc_error");
  ASSERT_TRUE(error.ok());
  EXPECT_EQ(error->kind, uringc::ValueKind::kSigned);
  // Offsets do not overlap inside a section.
  for (const auto& a : table_.vars()) {
    for (const auto& b : table_.vars()) {
      if (&a != &b && a.section == b.section) {
        EXPECT_TRUE(a.offset + a.size <= b.offset || b.offset + b.size <= a.offset)
            << a.name << " overlaps " << b.name;
      }
    }
  }
}

TEST_F(ObjectGlobals, UnknownNameListsWhatExists) {
  Open(URINGC_NOP_NAMED_OBJECT);
  auto r = table_.Find("totl");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ENOENT);
  EXPECT_NE(r.error().message.find("no global `totl`"), std::string::npos);
  EXPECT_NE(r.error().message.find("`total`"), std::string::npos);
}

TEST_F(ObjectGlobals, EncodeChecksRangeAndSign) {
  Open(URINGC_NOP_NAMED_OBJECT);
  auto inflight = *table_.Find("inflight");
  auto ok = table_.Encode(inflight, "0x10");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, (std::vector<uint8_t>{0x10, 0, 0, 0}));
  EXPECT_EQ(table_.Encode(inflight, "4294967296").error().code, -ERANGE);
  EXPECT_EQ(table_.Encode(inflight, "-1").error().code, -ERANGE);
  EXPECT_EQ(table_.Encode(inflight, "ten").error().code, -EINVAL);
  // The host's number syntax (uringc/numbers.h): `010` was octal 8, ` -1` and `-0` slipped into
  // unsigned globals.
  EXPECT_EQ(table_.Encode(inflight, "010").error().code, -EINVAL);
  EXPECT_NE(table_.Encode(inflight, "010").error().message.find("leading zero"), std::string::npos);
  EXPECT_EQ(table_.Encode(inflight, " -1").error().code, -EINVAL);
  EXPECT_EQ(table_.Encode(inflight, "1 ").error().code, -EINVAL);
  EXPECT_EQ(table_.Encode(inflight, "-0").error().code, -ERANGE);
  EXPECT_EQ(*table_.Encode(inflight, "0b11"), (std::vector<uint8_t>{3, 0, 0, 0}));
  EXPECT_EQ(*table_.Encode(inflight, "0o17"), (std::vector<uint8_t>{15, 0, 0, 0}));
  auto error = *table_.Find("uringc_error");
  auto neg = table_.Encode(error, "-5");
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(table_.DecodeInt(error, neg->data()).value(), -5);
  EXPECT_EQ(table_.EncodeInt(error, int64_t{-2147483648LL} - 1).error().code, -ERANGE);
  EXPECT_EQ(table_.Format(error, neg->data()), "-5");
}

TEST_F(ObjectGlobals, StructMembersByPath) {
  Open(URINGC_NOP_INFLIGHT_OBJECT);
  auto config = table_.Find("config");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->kind, uringc::ValueKind::kStruct);
  EXPECT_EQ(config->type_name, "struct nop_inflight_config");
  auto total = table_.Find("config.total");
  ASSERT_TRUE(total.ok()) << total.error().message;
  EXPECT_EQ(total->offset, config->offset + 40);  // after ten __u32 fields
  EXPECT_EQ(total->size, 8u);
  EXPECT_EQ(total->section, ".rodata");
  auto missing = table_.Find("config.nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("has no member `nope`"), std::string::npos);
  auto scalar = table_.Find("config.total.x");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.error().message.find("not a struct"), std::string::npos);
  // A struct cannot be set from an integer.
  EXPECT_EQ(table_.EncodeUint(*config, 1).error().code, -EINVAL);
  std::vector<uint8_t> bytes(config->size, 0);
  bytes[40] = 7;
  const std::string text = table_.Format(*config, bytes.data());
  EXPECT_NE(text.find("total = 7"), std::string::npos) << text;
  EXPECT_EQ(text.front(), '{');
}

// A BTF made by hand: bool, enum (by enumerator name), s8, and a .data section.
TEST(SyntheticGlobals, EnumsBoolsAndSmallSignedIntegers) {
  btf* b = btf__new_empty();
  const int s8 = btf__add_int(b, "signed char", 1, BTF_INT_SIGNED);
  const int boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
  const int mode = btf__add_enum(b, "mode", 4);
  btf__add_enum_value(b, "MODE_FAST", 1);
  btf__add_enum_value(b, "MODE_SAFE", 2);
  const int v1 = btf__add_var(b, "level", BTF_VAR_GLOBAL_ALLOCATED, s8);
  const int v2 = btf__add_var(b, "verbose", BTF_VAR_GLOBAL_ALLOCATED, boolean);
  const int v3 = btf__add_var(b, "mode", BTF_VAR_GLOBAL_ALLOCATED, mode);
  btf__add_datasec(b, ".data", 8);
  btf__add_datasec_var_info(b, v1, 0, 1);
  btf__add_datasec_var_info(b, v2, 1, 1);
  btf__add_datasec_var_info(b, v3, 4, 4);
  auto t = uringc::GlobalTable::FromBtf(b);
  ASSERT_TRUE(t.ok());
  auto level = *t->Find("level");
  EXPECT_EQ(level.kind, uringc::ValueKind::kSigned);
  EXPECT_TRUE(t->Encode(level, "-128").ok());
  EXPECT_EQ(t->Encode(level, "128").error().code, -ERANGE);
  auto verbose = *t->Find("verbose");
  EXPECT_EQ(t->Encode(verbose, "true").value(), std::vector<uint8_t>{1});
  EXPECT_EQ(t->Encode(verbose, "2").error().code, -ERANGE);
  auto m = *t->Find("mode");
  auto safe = t->Encode(m, "MODE_SAFE");
  ASSERT_TRUE(safe.ok());
  EXPECT_EQ(t->Format(m, safe->data()), "MODE_SAFE");
  auto bad = t->Encode(m, "MODE_WILD");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("MODE_FAST, MODE_SAFE"), std::string::npos);
  btf__free(b);
}

// An object's BTF may put a struct member past the end of the struct (found by
// uringc_object_fuzz): the member path is refused, and formatting the struct leaves it out
// instead of reading past the variable's bytes.
TEST(SyntheticGlobals, MemberOutsideItsStructIsRefused) {
  btf* b = btf__new_empty();
  const int u32 = btf__add_int(b, "unsigned int", 4, 0);
  const int cfg = btf__add_struct(b, "cfg", 8);
  btf__add_field(b, "a", u32, 0, 0);
  ASSERT_GE(btf__add_field(b, "far", u32, 0xfffffff0u, 0), 0);
  const int v = btf__add_var(b, "config", BTF_VAR_GLOBAL_ALLOCATED, cfg);
  btf__add_datasec(b, ".data", 8);
  btf__add_datasec_var_info(b, v, 0, 8);
  auto t = uringc::GlobalTable::FromBtf(b);
  ASSERT_TRUE(t.ok());
  auto far = t->Find("config.far");
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().message.find("lies outside"), std::string::npos) << far.error().message;
  EXPECT_TRUE(t->Find("config.a").ok());
  const std::vector<uint8_t> bytes = {1, 0, 0, 0, 2, 0, 0, 0};
  EXPECT_EQ(t->Format(*t->Find("config"), bytes.data()), "{a = 1}");
  btf__free(b);
}

TEST(SyntheticGlobals, NoBtfIsAnError) {
  EXPECT_FALSE(uringc::GlobalTable::FromBtf(nullptr).ok());
  EXPECT_EQ(uringc::GlobalTable::FromBtf(nullptr).error().kind, uringc::DiagKind::kBadObject);
}

}  // namespace
