// Calls through pointers on the software GPU (tests/unit/sim/test_indirect_calls.py): virtual
// functions of objects built in device code, a table of device functions, and a pointer to nothing.
#include <new>

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ explicit Square(float s) : s(s) {}
    __device__ float area() const override { return s * s; }
    __device__ int sides() const override { return 4; }
};
struct Circle : Shape {
    float r;
    __device__ explicit Circle(float r) : r(r) {}
    __device__ float area() const override { return 3.0f * r * r; }
};

typedef float (*op_t)(float, float);
__device__ float add_op(float a, float b) { return a + b; }
__device__ float mul_op(float a, float b) { return a * b; }
__device__ float sub_op(float a, float b) { return a - b; }
__device__ op_t ops[3] = {add_op, mul_op, sub_op};

// lanes alternate between the two classes: one call site, two targets in one warp
extern "C" __global__ void shapes(float *area, int *sides) {
    int i = threadIdx.x;
    alignas(8) char buf[16];
    Shape *s = (i & 1) ? static_cast<Shape *>(new (buf) Circle(i)) : static_cast<Shape *>(new (buf) Square(i));
    area[i] = s->area();
    sides[i] = s->sides();
    s->~Shape();
}

extern "C" __global__ void table(const int *which, float *out) {
    int i = threadIdx.x;
    out[i] = ops[which[i]](i, 2.0f);
}

// a function pointer that holds no function's address
extern "C" __global__ void wild(const unsigned long long *bits, float *out) {
    op_t f = (op_t)bits[0];
    out[0] = f(1.0f, 2.0f);
}
