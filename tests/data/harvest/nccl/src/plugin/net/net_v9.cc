  ncclNet_v9 = (ncclNet_v9_t*)ncclOsDlsym(lib, "ncclNetPlugin_v9");
