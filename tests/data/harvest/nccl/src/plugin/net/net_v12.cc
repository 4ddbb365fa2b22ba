  ncclNet_v12 = (ncclNet_v12_t*)dlsym(lib, "ncclNetPlugin_v12");
