int cv4l2_placeholder(void) { return 0; }
