/* gst-opencl example: run a pipeline with openclhistogram and print every histogram it posts.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * usage: histogram-print [--bars] [gst-launch-1.0 pipeline description]
 *
 * Without a description it runs a short test pattern through `openclhistogram bins=16`. Each
 * `opencl-histogram` element message is printed as one line per channel: the counts, or with
 * --bars a small text graph (one character per bin, its height in eighths of the channel's
 * tallest bin). The plugin is found through GST_PLUGIN_PATH like any other. */
#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *default_pipeline =
    "videotestsrc num-buffers=5 pattern=smpte ! video/x-raw,format=RGBA,width=320,height=240 ! "
    "openclhistogram bins=16 ! fakesink";

std::vector<guint64>
counts_of (const GValue * array)
{
  std::vector<guint64> counts;
  for (guint i = 0; i < gst_value_array_get_size (array); i++)
    counts.push_back (g_value_get_uint64 (gst_value_array_get_value (array, i)));
  return counts;
}

/* " .:-=+*#%": nine steps from empty to the tallest bin. */
std::string
text_graph (const std::vector<guint64> & counts)
{
  static const char steps[] = " .:-=+*#%";
  guint64 peak = counts.empty () ? 0 : *std::max_element (counts.begin (), counts.end ());
  std::string graph;
  for (guint64 count : counts)
    graph += steps[peak ? count * 8 / peak : 0];
  return graph;
}

void
print_histogram (const GstStructure * s, bool bars)
{
  guint64 timestamp = GST_CLOCK_TIME_NONE, duration = 0;
  guint frames = 0, bins = 0;
  gst_structure_get_uint64 (s, "timestamp", &timestamp);
  gst_structure_get_uint64 (s, "duration", &duration);
  gst_structure_get_uint (s, "frames", &frames);
  gst_structure_get_uint (s, "bins", &bins);
  std::printf ("%" GST_TIME_FORMAT " +%" GST_TIME_FORMAT ": %u frame(s), %u bins\n",
      GST_TIME_ARGS (timestamp), GST_TIME_ARGS (duration), frames, bins);
  /* Every array field is a channel: red/green/blue/luma, gray, or y/u/v. */
  for (int i = 0; i < gst_structure_n_fields (s); i++) {
    const gchar *name = gst_structure_nth_field_name (s, i);
    const GValue *value = gst_structure_get_value (s, name);
    if (!GST_VALUE_HOLDS_ARRAY (value))
      continue;
    auto counts = counts_of (value);
    guint64 total = 0;
    for (guint64 count : counts)
      total += count;
    if (bars) {
      std::printf ("  %-6s |%s| %" G_GUINT64_FORMAT " samples\n", name,
          text_graph (counts).c_str (), total);
    } else {
      std::printf ("  %-6s", name);
      for (guint64 count : counts)
        std::printf (" %" G_GUINT64_FORMAT, count);
      std::printf ("  (%" G_GUINT64_FORMAT " samples)\n", total);
    }
  }
  std::fflush (stdout);
}

}  // namespace

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  bool bars = false;
  std::string description;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp (argv[i], "--bars") == 0)
      bars = true;
    else if (std::strcmp (argv[i], "--help") == 0 || std::strcmp (argv[i], "-h") == 0) {
      std::printf ("usage: %s [--bars] [pipeline description]\n(default: %s)\n", argv[0],
          default_pipeline);
      return 0;
    } else
      description += (description.empty () ? "" : " ") + std::string (argv[i]);
  }
  if (description.empty ())
    description = default_pipeline;

  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch (description.c_str (), &error);
  if (!pipeline || error) {
    std::fprintf (stderr, "cannot build the pipeline: %s\n", error ? error->message : "?");
    g_clear_error (&error);
    if (pipeline)
      gst_object_unref (pipeline);
    return 1;
  }

  int status = 0;
  GstBus *bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    std::fprintf (stderr, "the pipeline would not start\n");
    status = 1;
  }
  while (status == 0) {
    GstMessage *message = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        (GstMessageType) (GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    bool done = false;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT) {
      const GstStructure *s = gst_message_get_structure (message);
      if (s && gst_structure_has_name (s, "opencl-histogram"))
        print_histogram (s, bars);
    } else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *bus_error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error (message, &bus_error, &debug);
      std::fprintf (stderr, "error from %s: %s\n%s\n", GST_OBJECT_NAME (message->src),
          bus_error->message, debug ? debug : "");
      g_clear_error (&bus_error);
      g_free (debug);
      status = 1;
    } else {
      done = true;
    }
    gst_message_unref (message);
    if (done)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return status;
}
