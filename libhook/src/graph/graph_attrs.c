/* A kernel node's launch attributes: cudaGraphKernelNodeSetAttribute / GetAttribute /
 * CopyAttributes and the Driver's. The cooperative flag and the cluster dimensions and scheduling
 * policy are the node's own (graph.h: a replay launches it so, as a captured cooperative or cluster
 * launch is); the others a node may carry (an access-policy window, a priority, memory
 * synchronisation domains, a preferred cluster shape or shared-memory carveout, device updatability)
 * are kept and read back, and change nothing in how rgpu launches the kernel. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"

enum { VALUE = 64, IDS = 17 }; /* bytes of a CUlaunchAttributeValue; attribute ids 0..16 */
_Static_assert(sizeof(CUlaunchAttributeValue) == VALUE, "one attribute value");
_Static_assert(sizeof(cudaLaunchAttributeValue) == VALUE, "one attribute value");

struct rgpu_kattrs {
    uint32_t set;               /* bit i: attribute i was set */
    unsigned char v[IDS][VALUE];
};

static int kept_id(int id) { /* the attributes a kernel node keeps as values */
    return id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW || id == CU_LAUNCH_ATTRIBUTE_PRIORITY ||
           id == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP || id == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN ||
           id == CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION ||
           id == CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE ||
           id == CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT ||
           id == CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
}

int rgpu_kattrs_copy(rgpu_kernel_node *to, const rgpu_kernel_node *from) {
    if (to->attrs == from->attrs) return 0;
    rgpu_kattrs_free(to);
    if (!from->attrs) return 0;
    if (!(to->attrs = malloc(sizeof *to->attrs))) return RGPU_OUT_OF_MEMORY;
    memcpy(to->attrs, from->attrs, sizeof *to->attrs);
    return 0;
}

void rgpu_kattrs_free(rgpu_kernel_node *k) {
    free(k->attrs);
    k->attrs = NULL;
}

static int kernel_node(const rgpu_gnode *n) { return n && n->type == NODE_KERNEL; }

static int get(int face, const rgpu_gnode *n, int id, void *out) {
    if (!kernel_node(n) || !out) return rgpu_invalid_value(face);
    const rgpu_kernel_node *k = &n->u.k;
    CUlaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    if (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
        v.cooperative = k->cooperative;
    } else if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        v.clusterDim.x = k->cluster[0], v.clusterDim.y = k->cluster[1], v.clusterDim.z = k->cluster[2];
    } else if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
        v.clusterSchedulingPolicyPreference = (CUclusterSchedulingPolicy)k->cluster[3];
    } else if (!kept_id(id)) {
        return rgpu_invalid_value(face);
    } else if (k->attrs && (k->attrs->set >> id & 1)) {
        memcpy(&v, k->attrs->v[id], VALUE);
    } else if (id == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP) {
        v.memSyncDomainMap.remote = 1; /* CUDA's default map: default 0, remote 1 */
    }
    memcpy(out, &v, VALUE);
    return 0;
}

static int set(int face, rgpu_gnode *n, int id, const void *in) {
    if (!kernel_node(n) || !in) return rgpu_invalid_value(face);
    rgpu_kernel_node *k = &n->u.k;
    CUlaunchAttributeValue v;
    memcpy(&v, in, VALUE);
    int rc = 0;
    pthread_mutex_lock(&rgpu_graph_mu);
    if (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
        k->cooperative = v.cooperative != 0;
    } else if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        k->cluster[0] = v.clusterDim.x, k->cluster[1] = v.clusterDim.y, k->cluster[2] = v.clusterDim.z;
    } else if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
        rc = (unsigned)v.clusterSchedulingPolicyPreference > CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING ? RGPU_INVALID_VALUE : 0;
        if (!rc) k->cluster[3] = v.clusterSchedulingPolicyPreference;
    } else if (!kept_id(id) || (id == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN && (unsigned)v.memSyncDomain > 1) ||
               (id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW &&
                !(v.accessPolicyWindow.hitRatio >= 0.0f && v.accessPolicyWindow.hitRatio <= 1.0f))) {
        rc = RGPU_INVALID_VALUE;
    } else if (!k->attrs && !(k->attrs = calloc(1, sizeof *k->attrs))) {
        rc = RGPU_OUT_OF_MEMORY;
    } else {
        memcpy(k->attrs->v[id], &v, VALUE);
        k->attrs->set |= 1u << id;
    }
    pthread_mutex_unlock(&rgpu_graph_mu);
    return rc ? rgpu_record(face, rc) : 0;
}

static int copy(int face, rgpu_gnode *dst, const rgpu_gnode *src) {
    if (!kernel_node(dst) || !kernel_node(src)) return rgpu_invalid_value(face);
    pthread_mutex_lock(&rgpu_graph_mu);
    dst->u.k.cooperative = src->u.k.cooperative;
    memcpy(dst->u.k.cluster, src->u.k.cluster, sizeof dst->u.k.cluster);
    int rc = rgpu_kattrs_copy(&dst->u.k, &src->u.k);
    pthread_mutex_unlock(&rgpu_graph_mu);
    return rc ? rgpu_record(face, rc) : 0;
}

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t n, cudaLaunchAttributeID id, cudaLaunchAttributeValue *out) {
    return get(RGPU_RUNTIME, n, id, out);
}
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t n, cudaLaunchAttributeID id, const cudaLaunchAttributeValue *in) {
    return set(RGPU_RUNTIME, n, id, in);
}
cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
    return copy(RGPU_RUNTIME, dst, src);
}
CUresult cuGraphKernelNodeGetAttribute(CUgraphNode n, CUkernelNodeAttrID id, CUkernelNodeAttrValue *out) {
    return get(RGPU_DRIVER, n, id, out);
}
CUresult cuGraphKernelNodeSetAttribute(CUgraphNode n, CUkernelNodeAttrID id, const CUkernelNodeAttrValue *in) {
    return set(RGPU_DRIVER, n, id, in);
}
CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src) { return copy(RGPU_DRIVER, dst, src); }
