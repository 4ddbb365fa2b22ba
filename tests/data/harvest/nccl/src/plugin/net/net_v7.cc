  ncclNet_v7 = (ncclNet_v7_t*)ncclOsDlsym(lib, "ncclNetPlugin_v7");
