/* SPDX-License-Identifier: MIT */
/*
 * ONNX models made in C for the tests, with the protobuf-c code generated
 * from onnx.proto (build/gen/onnx.pb-c.h, linked in libane.a): a graph of
 * up to 8 nodes with float inputs, outputs and raw-data initializers,
 * packed into the bytes ane_model_load_onnx() reads.  For
 * tests/host/onnx_load_test.c and tests/vm/broker_test.c.
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANE_TEST_ONNX_MODELS_H
#define ANE_TEST_ONNX_MODELS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

struct mk {
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset, *opsets[1];
	Onnx__NodeProto node[8], *nodes[8];
	Onnx__ValueInfoProto vi[8], *ins[4], *outs[4];
	Onnx__TypeProto tp[8];
	Onnx__TypeProto__Tensor tt[8];
	Onnx__TensorShapeProto shp[8];
	Onnx__TensorShapeProto__Dimension dim[8][8], *dims[8][8];
	Onnx__TensorProto init[4], *inits[4];
	Onnx__AttributeProto attr[8], *attrs[8][2];
	char *in_names[8][4], *out_names[8][4];
	int n_vi;
};

static inline void mk_init(struct mk *m, int64_t opset)
{
	memset(m, 0, sizeof(*m));
	onnx__model_proto__init(&m->model);
	onnx__graph_proto__init(&m->graph);
	onnx__operator_set_id_proto__init(&m->opset);
	m->model.has_ir_version = 1;
	m->model.ir_version = 8;
	m->opset.domain = "";
	m->opset.has_version = 1;
	m->opset.version = opset;
	m->opsets[0] = &m->opset;
	m->model.n_opset_import = 1;
	m->model.opset_import = m->opsets;
	m->model.graph = &m->graph;
	m->graph.name = "test";
	m->graph.node = m->nodes;
	m->graph.input = m->ins;
	m->graph.output = m->outs;
	m->graph.initializer = m->inits;
}

/* A float tensor value-info of @rank dims (-1: a dim_param "batch"). */
static inline Onnx__ValueInfoProto *mk_vi(struct mk *m, const char *name, int rank,
				   const int64_t *d)
{
	int k = m->n_vi++, i;
	Onnx__ValueInfoProto *v = &m->vi[k];

	onnx__value_info_proto__init(v);
	onnx__type_proto__init(&m->tp[k]);
	onnx__type_proto__tensor__init(&m->tt[k]);
	onnx__tensor_shape_proto__init(&m->shp[k]);
	v->name = (char *)name;
	v->type = &m->tp[k];
	m->tp[k].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	m->tp[k].tensor_type = &m->tt[k];
	m->tt[k].has_elem_type = 1;
	m->tt[k].elem_type = 1;
	m->tt[k].shape = &m->shp[k];
	m->shp[k].n_dim = (size_t)rank;
	m->shp[k].dim = m->dims[k];
	for (i = 0; i < rank; i++) {
		onnx__tensor_shape_proto__dimension__init(&m->dim[k][i]);
		m->dims[k][i] = &m->dim[k][i];
		if (d[i] < 0) {
			m->dim[k][i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			m->dim[k][i].dim_param = "batch";
		} else {
			m->dim[k][i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			m->dim[k][i].dim_value = d[i];
		}
	}
	return v;
}

static inline void mk_input(struct mk *m, const char *name, int rank, const int64_t *d)
{
	m->ins[m->graph.n_input++] = mk_vi(m, name, rank, d);
}

static inline void mk_output(struct mk *m, const char *name, int rank, const int64_t *d)
{
	m->outs[m->graph.n_output++] = mk_vi(m, name, rank, d);
}

static inline Onnx__NodeProto *mk_node(struct mk *m, const char *op, const char *in0,
				const char *in1, const char *out0)
{
	int k = (int)m->graph.n_node++;
	Onnx__NodeProto *n = &m->node[k];

	onnx__node_proto__init(n);
	m->nodes[k] = n;
	n->op_type = (char *)op;
	n->name = (char *)op;
	m->in_names[k][0] = (char *)in0;
	m->in_names[k][1] = (char *)in1;
	n->n_input = in1 ? 2 : 1;
	n->input = m->in_names[k];
	m->out_names[k][0] = (char *)out0;
	n->n_output = 1;
	n->output = m->out_names[k];
	return n;
}

/* A float initializer of @n values at @v (raw_data). */
static inline Onnx__TensorProto *mk_init_f(struct mk *m, const char *name, int rank,
				    const int64_t *d, const float *v, size_t n)
{
	int k = (int)m->graph.n_initializer++;
	Onnx__TensorProto *t = &m->init[k];

	onnx__tensor_proto__init(t);
	m->inits[k] = t;
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = 1;
	t->n_dims = (size_t)rank;
	t->dims = (int64_t *)d;
	t->has_raw_data = 1;
	t->raw_data.len = n * sizeof(float);
	t->raw_data.data = (uint8_t *)v;
	return t;
}

static inline uint8_t *mk_pack(struct mk *m, size_t *len)
{
	uint8_t *buf;

	*len = onnx__model_proto__get_packed_size(&m->model);
	buf = malloc(*len ? *len : 1);
	if (buf)
		onnx__model_proto__pack(&m->model, buf);
	return buf;
}

#endif /* ANE_TEST_ONNX_MODELS_H */
