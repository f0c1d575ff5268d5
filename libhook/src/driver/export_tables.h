/* What the export tables (export_tables.c) need from the rest of the library. */
#ifndef RGPU_EXPORT_TABLES_H
#define RGPU_EXPORT_TABLES_H
#include <stdint.h>

#define RGPU_FATBIN_WRAPPER_MAGIC 0x466243b1u

/* module/modules.c: a module of the current device from a fatbin container (or a wrapper's data). */
int rgpu_module_from_fatbin(void **module, const void *image);

/* driver_local.c: contexts */
typedef void (*rgpu_cls_dtor)(void *ctx, void *key, void *value);
int rgpu_primary_ctx_get(void **pctx, int dev);
int rgpu_ctx_cls_put(void *ctx, void *key, void *value, rgpu_cls_dtor dtor);
int rgpu_ctx_cls_get(void *ctx, void *key, void **value);
int rgpu_ctx_cls_delete(void *ctx, void *key);
int rgpu_ctx_current(void **ctx);                         /* NULL when none is current */
int rgpu_ctx_id(void *ctx, unsigned long long *id);       /* ctx NULL: the current one */

/* driver_local.c: what identifies device `dev` to the integrity check */
int rgpu_device_identity(int dev, uint8_t uuid[16], int32_t *pci_domain, int32_t *pci_bus, int32_t *pci_device);
#endif
