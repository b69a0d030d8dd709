#include <gst/check/gstcheck.h>
int main (int argc, char **argv) { gst_check_init (&argc, &argv); return 0; }
