/* CUDA graphs in the client. A graph is a description of work: nodes (a kernel launch with its packed
 * parameters, a copy, a memset, a host function, an event record or wait, a child graph, nothing) and
 * the edges between them. Launching an executable graph replays its nodes in a topological order onto
 * the launch stream through the ordinary paths (launch.c, memcpy.c, the generated memset and event
 * stubs, callbacks.c), so the server needs nothing new and quotas, scheduling and sticky errors apply
 * as to the same calls made one by one. Stream capture (capture.c) builds the same graphs. */
#ifndef RGPU_GRAPH_H
#define RGPU_GRAPH_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "rgpu_call.h"

/* Node types and the result codes of graphs and capture, by CUDA's names (the Driver's have the same
 * numbers: CUgraphNodeType, CUresult). */
enum {
    NODE_KERNEL = cudaGraphNodeTypeKernel, NODE_MEMCPY = cudaGraphNodeTypeMemcpy, NODE_MEMSET = cudaGraphNodeTypeMemset,
    NODE_HOST = cudaGraphNodeTypeHost, NODE_GRAPH = cudaGraphNodeTypeGraph, NODE_EMPTY = cudaGraphNodeTypeEmpty,
    NODE_WAIT_EVENT = cudaGraphNodeTypeWaitEvent, NODE_EVENT_RECORD = cudaGraphNodeTypeEventRecord,
    NODE_MEM_ALLOC = cudaGraphNodeTypeMemAlloc, NODE_MEM_FREE = cudaGraphNodeTypeMemFree,
};
enum {
    ERR_CAPTURE_UNSUPPORTED = cudaErrorStreamCaptureUnsupported, ERR_CAPTURE_INVALIDATED = cudaErrorStreamCaptureInvalidated,
    ERR_CAPTURE_UNMATCHED = cudaErrorStreamCaptureUnmatched, ERR_CAPTURE_UNJOINED = cudaErrorStreamCaptureUnjoined,
    ERR_CAPTURE_ISOLATION = cudaErrorStreamCaptureIsolation, ERR_CAPTURE_IMPLICIT = cudaErrorStreamCaptureImplicit,
    ERR_CAPTURED_EVENT = cudaErrorCapturedEvent, ERR_CAPTURE_WRONG_THREAD = cudaErrorStreamCaptureWrongThread,
    ERR_GRAPH_EXEC_UPDATE = cudaErrorGraphExecUpdateFailure, ERR_ILLEGAL_STATE = cudaErrorIllegalState,
};

typedef struct CUgraph_st rgpu_graph;
typedef struct CUgraphNode_st rgpu_gnode;

typedef struct {
    int face;
    const void *func;       /* what the program named: a host stub (runtime) or a CUfunction (driver) */
    void *fn;               /* the session's function (tagged handle) */
    const rgpu_layout *layout; /* NULL when the parameters came packed (CU_LAUNCH_PARAM_BUFFER_POINTER) */
    unsigned g[3], b[3], shmem;
    int cooperative;        /* captured from a cooperative launch: replayed as one (grid.sync() needs it) */
    unsigned cluster[4];    /* captured from a cluster launch: its dimensions and scheduling policy (all zeros: none) */
    struct rgpu_kattrs *attrs; /* the other launch attributes set on the node (graph_attrs.c; NULL: none) */
    uint8_t *buf;           /* the packed parameters: a deep copy taken when the node was made */
    size_t nbytes;
    void **args;            /* kernelParams for KernelNodeGetParams: pointers into buf */
} rgpu_kernel_node;

typedef struct {
    void *dst;
    const void *src;
    size_t dpitch, spitch, width, height; /* height 1: a 1D copy of width bytes */
    int kind;
    int box;                  /* a copy with CUDA arrays or depth > 1: b (in bytes) is the copy, replayed by
                                 memory/array_copy.c; r is what the Runtime gave (its units: elements) */
    CUDA_MEMCPY3D b;
    struct cudaMemcpy3DParms r;
} rgpu_copy_node;

typedef struct {
    void *dst;
    size_t pitch, width, height;
    unsigned value, elsize;
} rgpu_memset_node;

/* Memory of an allocation node (graph_mem.c): allocated when the node is made, so its address is fixed
 * for every launch; shared by the clones and executable graphs of its graph. */
typedef struct rgpu_graph_mem {
    uint64_t dptr;
    size_t size;
    int refs;               /* nodes holding it */
    int live;               /* allocated by a launch and not freed since (by a free node or the program) */
    struct rgpu_graph_mem *next;
} rgpu_graph_mem;

struct CUgraphNode_st {
    rgpu_graph *graph;
    int index;              /* position in graph->nodes: the same node of a clone or an executable graph */
    int type;
    int disabled;           /* of an executable graph's node: cudaGraphNodeSetEnabled(..., 0) */
    rgpu_gnode **deps;
    int ndeps, capdeps;
    union {
        rgpu_kernel_node k;
        rgpu_copy_node m;
        rgpu_memset_node s;
        struct { void (*fn)(void *); void *data; } h;
        rgpu_graph *child;
        void *event;
        rgpu_graph_mem *mem;  /* NODE_MEM_ALLOC */
        uint64_t dptr;        /* NODE_MEM_FREE */
    } u;
};

/* References a graph holds on a user object (user_objects.c) */
typedef struct { struct CUuserObject_st *obj; unsigned count; } rgpu_uref;

struct CUgraph_st {
    rgpu_gnode **nodes;
    int n, cap;
    rgpu_uref *urefs;
    int nurefs, capurefs;
};

typedef struct CUgraphExec_st {
    rgpu_graph *graph;      /* a snapshot taken at instantiation */
    const rgpu_graph *source; /* the graph it was instantiated from: nodes are found by index */
    rgpu_gnode **order;     /* topological order of graph's nodes */
    unsigned long long flags;
    /* graph_server.c: the server's build of it (NULL: none), on device server_dev; server_refused: the
     * server would not build it as it is; changed: a node changed since it was built (rgpu_exec_node) */
    struct rgpuGraph_st *server;
    int server_dev, server_refused, changed;
} rgpu_graph_exec;

extern pthread_mutex_t rgpu_graph_mu;

rgpu_graph *rgpu_graph_new(void);
void rgpu_graph_free(rgpu_graph *g);
rgpu_graph *rgpu_graph_clone(const rgpu_graph *g);
/* A node of type with the given dependencies (checked to belong to g); NULL and *rc on failure. */
rgpu_gnode *rgpu_graph_add(rgpu_graph *g, int type, rgpu_gnode *const *deps, size_t ndeps, int *rc);
int rgpu_node_add_dep(rgpu_gnode *n, rgpu_gnode *dep);
void rgpu_node_clear(rgpu_gnode *n);       /* frees what the node's parameters own */
int rgpu_node_copy_params(rgpu_gnode *dst, const rgpu_gnode *src); /* deep copy, same type */
/* Topological order (Kahn, ties in creation order); NULL and *rc when the graph has a cycle. */
rgpu_gnode **rgpu_graph_order(const rgpu_graph *g, int *rc);
/* Takes n out of its graph with its edges (later nodes move down one index). */
void rgpu_graph_remove(rgpu_gnode *n);
/* Issues the nodes in order onto stream; the first failure is returned. */
/* flags: the executable graph's instantiation flags (cudaGraphInstantiateFlagAutoFreeOnLaunch) */
int rgpu_graph_replay(int face, rgpu_gnode **order, int n, void *stream, unsigned long long flags);

/* Kernel node parameters: resolve func to the session's function and its layout, and deep-copy args
 * (or the packed buffer of `extra`) into k. */
int rgpu_kernel_node_set(int face, rgpu_kernel_node *k, const void *func, const unsigned g[3], const unsigned b[3],
                         unsigned shmem, void **args, void **extra, void *stream);
int rgpu_kernel_node_fill(rgpu_kernel_node *k, int face, const void *func, void *fn, const rgpu_layout *l,
                          const unsigned g[3], const unsigned b[3], unsigned shmem, const void *buf, size_t n);

/* graph_server.c: launches e as the server's graph where it can (1, and the launch's result in *rc), or
 * 0: the caller replays it; drop: forgets the server's graph (e is destroyed) */
int rgpu_graph_server_launch(int face, rgpu_graph_exec *e, void *stream, int *rc);
void rgpu_graph_server_upload(rgpu_graph_exec *e, void *stream); /* builds it now: cudaGraphUpload */
void rgpu_graph_server_drop(rgpu_graph_exec *e);

/* graph_exec.c: the executable graph's copy of a node of the graph it was instantiated from, which the
 * caller may change (the server's build is then stale), or only read (peek) */
rgpu_gnode *rgpu_exec_node(rgpu_graph_exec *e, rgpu_gnode *n, int type);
const rgpu_gnode *rgpu_exec_node_peek(const rgpu_graph_exec *e, const rgpu_gnode *n, int type);

/* graph_attrs.c: a kernel node's launch attributes, copied with its parameters and freed with them */
int rgpu_kattrs_copy(rgpu_kernel_node *to, const rgpu_kernel_node *from);
void rgpu_kattrs_free(rgpu_kernel_node *k);

/* user_objects.c: a clone holds again what its graph holds; a freed graph gives its references back */
int rgpu_urefs_copy(rgpu_graph *to, const rgpu_graph *from);
void rgpu_urefs_release(rgpu_graph *g);

/* graph_mem.c */
rgpu_graph_mem *rgpu_gmem_new(int face, size_t size, int *rc);
void rgpu_gmem_ref(rgpu_graph_mem *m);
void rgpu_gmem_unref(rgpu_graph_mem *m);
int rgpu_gmem_launch_alloc(int face, rgpu_graph_mem *m, int autofree);
int rgpu_gmem_launch_free(int face, uint64_t dptr, void *stream);

/* launch.c: the pieces of a launch that graphs reuse */
int rgpu_launch_target(int face, const void *func, void *stream, void **fn, const rgpu_layout **layout);
int rgpu_pack_args(const rgpu_layout *l, void **args, uint8_t *buf);
int rgpu_launch_packed(int face, const void *func, void *fn, const rgpu_layout *l, const unsigned g[3],
                       const unsigned b[3], size_t shmem, void *stream, const void *buf, size_t n, int cooperative,
                       const unsigned cluster[4]);

/* capture.c: 1 when stream is capturing (cheap when nothing captures); _on: when any stream of device
 * dev is (the legacy stream's capture counts for every device) */
int rgpu_capturing(const void *stream);
int rgpu_capturing_on(int dev);
/* While stream captures: adds a deep copy of proto (a node on the caller's stack) to its graph, sets *rc
 * and returns 1; otherwise returns 0 and the caller issues the call itself. */
int rgpu_capture_append(const void *stream, const rgpu_gnode *proto, int *rc);
/* A copy node (1D) on a capturing stream: 1 and *rc, or 0 when stream does not capture. */
int rgpu_capture_copy(int face, int *rc, void *dst, const void *src, size_t n, int kind, void *stream);
#endif
