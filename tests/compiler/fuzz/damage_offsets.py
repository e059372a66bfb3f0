#!/usr/bin/env python3
# Makes the two damaged objects in regressions/object/ that libbpf 1.4.6 reads outside of when
# it opens them (runtime/include/uringc/object_bounds.h says where), from a clang-built controller:
#   damage_offsets.py build/tests/controllers/nop_named.bpf.o \
#       regressions/object/symbol_offset_wraps.bpf.o regressions/object/struct_ops_offset_wraps.bpf.o
import struct
import sys

src, out_sym, out_btf = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
def sh(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
names = sh(shstrndx)
def name(off, tab):
    e = b.index(b'\0', tab + off); return b[tab + off:e].decode()
secs = [sh(i) for i in range(shnum)]
secname = [name(s[0], names[4]) for s in secs]
# 1. A FUNC symbol whose offset wraps: sec_off + prog_sz == 8 (mod 2^64).
sym = bytearray(b)
symtab = next(s for s in secs if s[1] == 2)
strtab = secs[symtab[6]]
for off in range(symtab[4], symtab[4] + symtab[5], 24):
    st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from('<IBBHQQ', b, off)
    if st_info & 0xf == 2 and secname[st_shndx].startswith('struct_ops'):
        struct.pack_into('<QQ', sym, off + 8, (1 << 64) - (1 << 20), (1 << 20) + 8)
        print('symbol', name(st_name, strtab[4]), 'in', secname[st_shndx])
        break
open(out_sym, 'wb').write(sym)
# 2. The struct_ops variable's DATASEC offset wraps 32 bits with the struct's size.
btf = next(s for s in secs if secname[secs.index(s)] == '.BTF')
base = btf[4]
magic, ver, flags, hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from('<HBBIIIII', b, base)
types = base + hdr_len + type_off; strs = base + hdr_len + str_off
pos = types; end = types + type_len
sizes = {}
tid = 1
found = False
while pos < end:
    name_off, info, size_or_type = struct.unpack_from('<III', b, pos)
    kind = (info >> 24) & 0x1f; vlen = info & 0xffff
    tname = name(name_off, strs)
    body = pos + 12
    extra = {1: 4, 2: 0, 3: 12, 4: 12 * vlen, 5: 12 * vlen, 6: 8 * vlen, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0,
             12: 0, 13: 8 * vlen, 14: 4, 15: 12 * vlen, 16: 0, 17: 4, 18: 0, 19: 12 * vlen}[kind]
    if kind == 15 and tname.startswith('.struct_ops'):
        for i in range(vlen):
            vtype, voff, vsize = struct.unpack_from('<III', b, body + 12 * i)
            struct.pack_into('<I', b, body + 12 * i + 4, (1 << 32) - 16)
            print('datasec', tname, 'var type', vtype, 'offset', voff, 'size', vsize)
            found = True
        struct.pack_into('<I', b, pos + 8, 24)  # a sized DATASEC: libbpf keeps its offsets
    pos = body + extra
    tid += 1
assert found
open(out_btf, 'wb').write(b)
