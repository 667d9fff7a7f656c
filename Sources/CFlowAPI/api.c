// Header only: the interface of libslomo-flow.so, shared by the library and its loader.
