  ncclNet_v10 = (ncclNet_v10_t*)ncclOsDlsym(lib, "ncclNetPlugin_v10");
