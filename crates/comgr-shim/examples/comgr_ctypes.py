"""Translate a gfx1250 code object for gfx942 through the COMGR shim, as a runtime loader would.

usage: python3 comgr_ctypes.py <libamd_comgr.so.3> <in.hsaco> [out.hsaco]
"""
import ctypes
import sys


class Data(ctypes.Structure):  # amd_comgr_data_t
    _fields_ = [("handle", ctypes.c_uint64)]


SUCCESS, KIND_EXECUTABLE = 0, 0x8
lib = ctypes.CDLL(sys.argv[1])
lib.amd_comgr_create_data.argtypes = [ctypes.c_int, ctypes.POINTER(Data)]
lib.amd_comgr_set_data.argtypes = [Data, ctypes.c_size_t, ctypes.c_char_p]
lib.amd_comgr_get_data.argtypes = [Data, ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p]
lib.amd_comgr_release_data.argtypes = [Data]
lib.amd_comgr_hotswap_rewrite.argtypes = [Data, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Data)]
lib.hotswap_comgr_last_error.restype = ctypes.c_char_p

code = open(sys.argv[2], "rb").read()
inp, out = Data(), Data()
assert lib.amd_comgr_create_data(KIND_EXECUTABLE, ctypes.byref(inp)) == SUCCESS
assert lib.amd_comgr_set_data(inp, len(code), code) == SUCCESS
status = lib.amd_comgr_hotswap_rewrite(
    inp, b"amdgcn-amd-amdhsa--gfx1250", b"amdgcn-amd-amdhsa--gfx942", ctypes.byref(out))
print("status", status)
if status == SUCCESS:
    size = ctypes.c_size_t(0)
    lib.amd_comgr_get_data(out, ctypes.byref(size), None)
    buf = ctypes.create_string_buffer(size.value)
    lib.amd_comgr_get_data(out, ctypes.byref(size), buf)
    if len(sys.argv) > 3:
        open(sys.argv[3], "wb").write(buf.raw)
    print("translated", size.value, "bytes")
    lib.amd_comgr_release_data(out)
else:
    print("error", lib.hotswap_comgr_last_error().decode())
lib.amd_comgr_release_data(inp)
