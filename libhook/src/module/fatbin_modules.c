/* Modules NVIDIA's runtimes load from the fatbins they carry (through CUDART_INTERFACE,
 * driver/export_tables.c). */
#include "export_tables.h"
#include "rgpu_call.h"

int rgpu_module_from_fatbin(void **module, const void *image) { return cuModuleLoadData((CUmodule *)module, image); }
