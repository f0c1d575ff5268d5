// The other half of the PTX link test: the device function link_a.cu's kernel calls.
__device__ float scale_value(float v) { return 2.0f * v + 1.0f; }
