/*
 * ARMCI's messaging calls over CCS (declared as ARMCI-MPI 0.3.1 declares
 * them). They run on CCS teams and active messages, never on MPI.
 *
 * Scopes: SCOPE_ALL is every process of the group; SCOPE_NODE the
 * group's processes on the caller's node; SCOPE_MASTERS the lowest-ranked
 * group process of each node (on any other process the call leaves its
 * data as it is). Reduction ops: "+", "*", "max", "min", "absmax",
 * "absmin" (the abs forms return absolute values).
 */
#ifndef ARMCI_MESSAGE_H_
#define ARMCI_MESSAGE_H_

#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

enum armci_scope_e { SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS };
enum armci_type_e { ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE };

int armci_msg_me(void);
int armci_msg_nproc(void);
void armci_msg_abort(int code);
double armci_timer(void);

/* Point to point, matched by source and tag in the order sent. */
void armci_msg_snd(int tag, void *buffer, int len, int to);
void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

void armci_msg_barrier(void);
void armci_msg_group_barrier(ARMCI_Group *group);
/* A binary tree over the scope's processes: root, parent, children (-1
 * where there is none). */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

void armci_msg_bcast(void *buffer, int len, int root);
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root);
void armci_msg_brdcst(void *buffer, int len, int root);
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);

/* The result lands on the scope's first process (others keep x). */
void armci_msg_reduce(void *x, int n, char *op, int type);
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);

/* x holds n bytes whose first element (of `type`) is compared: every
 * process gets the x of the contributor with the smallest ("min") or
 * largest ("max") value, the lowest rank among equals. */
void armci_msg_sel(void *x, int n, char *op, int type, int contribute);
void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);

/* ptr_ar[i] becomes process i's ptr_ar[i] (n: the number of processes). */
void armci_exchange_address(void *ptr_ar[], int n);

/* Within the caller's node, from its lowest-ranked process. */
void armci_msg_clus_brdcst(void *buf, int len);
void armci_msg_clus_igop(int *x, int n, char *op);
void armci_msg_clus_fgop(float *x, int n, char *op);
void armci_msg_clus_lgop(long *x, int n, char *op);
void armci_msg_clus_llgop(long long *x, int n, char *op);
void armci_msg_clus_dgop(double *x, int n, char *op);

void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group);
/* Within the caller's node among the group's processes, from grp_master
 * (an absolute id); grp_clus_nproc is checked against the node's count. */
void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc, ARMCI_Group *mastergroup);

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_igop(int *x, int n, char *op);
void armci_msg_lgop(long *x, int n, char *op);
void armci_msg_llgop(long long *x, int n, char *op);
void armci_msg_fgop(float *x, int n, char *op);
void armci_msg_dgop(double *x, int n, char *op);

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group);
void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);

#ifdef __cplusplus
}
#endif
#endif /* ARMCI_MESSAGE_H_ */
