  ncclNet_v11 = (ncclNet_v11_t*)ncclOsDlsym(lib, "ncclNetPlugin_v11");
