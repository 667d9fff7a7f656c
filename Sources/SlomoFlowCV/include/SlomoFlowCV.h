// libslomo-flow.so's interface is CFlowAPI's slomo_flow.h; nothing is imported from here.
