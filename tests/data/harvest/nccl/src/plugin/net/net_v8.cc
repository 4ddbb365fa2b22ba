  ncclNet_v8 = (ncclNet_v8_t*)ncclOsDlsym(lib, "ncclNetPlugin_v8");
