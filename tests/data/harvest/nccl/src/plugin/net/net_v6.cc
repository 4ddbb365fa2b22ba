  ncclNet_v6 = (ncclNet_v6_t*)ncclOsDlsym(lib, "ncclNetPlugin_v6");
