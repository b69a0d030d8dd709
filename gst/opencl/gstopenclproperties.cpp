/* gst-opencl: the classes' property tables, and the values of an element's Settings members.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "opencl/gstopenclproperties.h"


#include <algorithm>
#include <cmath>
#include <map>

GST_DEBUG_CATEGORY_STATIC (gst_opencl_properties_debug);
#define GST_CAT_DEFAULT gst_opencl_properties_debug

namespace gst_opencl {

namespace {

/* Every class's table, by the GType that owns its properties. Tables are made in class_init
 * and live as long as the process (classes of a static plugin are never finalized). */
std::mutex tables_lock;
std::map<GType, PropertyTable *> & tables ()
{
  static std::map<GType, PropertyTable *> by_type;
  return by_type;
}

}  // namespace

PropertyTable &
PropertyTable::of (GObjectClass * klass)
{
  std::lock_guard<std::mutex> lock (tables_lock);
  PropertyTable *& table = tables ()[G_OBJECT_CLASS_TYPE (klass)];
  if (!table) {
    table = new PropertyTable (klass);
    klass->set_property = set_property;
    klass->get_property = get_property;
  }
  return *table;
}

PropertyTable &
PropertyTable::add (GParamSpec * spec, Set set, Get get)
{
  rows_.push_back (Row { std::move (set), std::move (get) });
  g_object_class_install_property (klass_, (guint) rows_.size (), spec);
  return *this;
}

PropertyTable *
PropertyTable::owner_of (GParamSpec * pspec)
{
  std::lock_guard<std::mutex> lock (tables_lock);
  auto found = tables ().find (pspec->owner_type);
  return found == tables ().end () ? nullptr : found->second;
}

const PropertyTable::Row *
PropertyTable::row (guint prop_id) const
{
  if (prop_id == 0 || prop_id > rows_.size ())
    return nullptr;
  return &rows_[prop_id - 1];
}

void
PropertyTable::set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  const PropertyTable *table = owner_of (pspec);
  const Row *found = table ? table->row (prop_id) : nullptr;
  if (!found || !found->set) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  if (refused_while_running (object, pspec))
    return;
  found->set (object, value);
  log_property_set (object, pspec, value);
}

void
PropertyTable::get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  const PropertyTable *table = owner_of (pspec);
  const Row *found = table ? table->row (prop_id) : nullptr;
  if (!found || !found->get) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  found->get (object, value);
}

void value_into (const GValue * value, double & member) { member = g_value_get_double (value); }
void value_into (const GValue * value, int & member) { member = g_value_get_int (value); }
void value_into (const GValue * value, guint & member) { member = g_value_get_uint (value); }
void value_into (const GValue * value, guint64 & member) { member = g_value_get_uint64 (value); }
void value_into (const GValue * value, bool & member) { member = g_value_get_boolean (value); }

void
value_into (const GValue * value, std::string & member)
{
  const gchar *text = g_value_get_string (value);
  member = text ? text : "";
}

void
value_into (const GValue * value, std::vector<float> & member)
{
  member = float_array_from_value (value);
}

void value_from (double member, GValue * value) { g_value_set_double (value, member); }
void value_from (int member, GValue * value) { g_value_set_int (value, member); }
void value_from (guint member, GValue * value) { g_value_set_uint (value, member); }
void value_from (guint64 member, GValue * value) { g_value_set_uint64 (value, member); }
void value_from (bool member, GValue * value) { g_value_set_boolean (value, member); }

void
value_from (const std::string & member, GValue * value)
{
  g_value_set_string (value, member.empty () ? nullptr : member.c_str ());
}

void
value_from (const std::vector<float> & member, GValue * value)
{
  float_array_to_value (member, value);
}

GParamSpec *
float_array_spec (const char *name, const char *nick, const char *blurb, GParamFlags flags)
{
  return gst_param_spec_array (name, nick, blurb,
      g_param_spec_float ("tap", "Tap", "One tap", -G_MAXFLOAT, G_MAXFLOAT, 0.0f,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)), flags);
}

GType
enum_type (const char *name, std::initializer_list<GEnumValue> values)
{
  static std::mutex lock;
  std::lock_guard<std::mutex> guard (lock);
  GType type = g_type_from_name (name);
  if (type)
    return type;
  /* g_enum_register_static keeps the table: it lives as long as the type, for good. */
  auto *table = new GEnumValue[values.size () + 1] ();
  std::copy (values.begin (), values.end (), table);
  return g_enum_register_static (name, table);
}

void
log_property_set (GObject * object, GParamSpec * pspec, const GValue * value)
{
  static gsize initialised = 0;
  if (g_once_init_enter (&initialised)) {
    GST_DEBUG_CATEGORY_INIT (gst_opencl_properties_debug, "openclproperties", 0,
        "Properties of the OpenCL elements as they are set");
    g_once_init_leave (&initialised, 1);
  }
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) < GST_LEVEL_DEBUG)
    return;
  gchar *contents = g_strdup_value_contents (value);
  GST_DEBUG_OBJECT (object, "%s = %s", pspec->name, contents);
  g_free (contents);
}

std::vector<float>
float_array_from_value (const GValue * value)
{
  std::vector<float> values;
  if (!GST_VALUE_HOLDS_ARRAY (value))
    return values;
  const guint count = gst_value_array_get_size (value);
  values.reserve (count);
  for (guint index = 0; index < count; index++) {
    const GValue *element = gst_value_array_get_value (value, index);
    GValue as_float = G_VALUE_INIT;
    g_value_init (&as_float, G_TYPE_FLOAT);
    if (g_value_transform (element, &as_float))
      values.push_back (g_value_get_float (&as_float));
    else
      values.push_back (NAN);
    g_value_unset (&as_float);
  }
  return values;
}

void
float_array_to_value (const std::vector<float> & values, GValue * value)
{
  for (float v : values) {
    GValue element = G_VALUE_INIT;
    g_value_init (&element, G_TYPE_FLOAT);
    g_value_set_float (&element, v);
    gst_value_array_append_and_take_value (value, &element);
  }
}

}  // namespace gst_opencl
