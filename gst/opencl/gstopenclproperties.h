/* gst-opencl: the one way a class of the plugin declares its properties (PropertyTable: a row per
 * property, its spec and how a value goes into an instance and out of it), and the typed front
 * of it that elements use (ElementProperties: rows bound to the members of a Settings struct,
 * the private struct deleted at finalize, its run dropped at stop).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every class that has properties (the bases with the device's, openclkernel's host, every
 * element) adds its rows to PropertyTable::of (its class) in class_init; the table takes over the
 * class's set_property and get_property, so no class writes a switch over property ids. A row
 * of the bases reaches its part of the instance through an accessor (ElementDevice &
 * (GObject *)); an element's rows reach its Settings through ElementProperties. Every set goes
 * through one place: a property flagged "changeable only in NULL or READY" is refused with a
 * WARNING once caps are negotiated (refused_while_running), and every set value is logged.
 * stop_drops_run () stands for the stop that drops what the element built for the context it
 * ran on; enum_type () for the g_once registration of an enum property's type;
 * element_class_begin () for the start every element's class_init shares, and
 * GST_OPENCL_DEFINE_ELEMENT for the instance struct, type and registration of an element. */
#pragma once

#include <gst/base/gstbasesrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "opencl/gstopenclutils.h"

namespace gst_opencl {

/* A property's value into a member of Settings, and back, for the types Settings hold. A NULL
 * string is stored as "" and read back as NULL; float arrays are GstValueArrays. */
void value_into (const GValue * value, double & member);
void value_into (const GValue * value, int & member);
void value_into (const GValue * value, guint & member);
void value_into (const GValue * value, guint64 & member);
void value_into (const GValue * value, bool & member);
void value_into (const GValue * value, std::string & member);
void value_into (const GValue * value, std::vector<float> & member);
void value_from (double member, GValue * value);
void value_from (int member, GValue * value);
void value_from (guint member, GValue * value);
void value_from (guint64 member, GValue * value);
void value_from (bool member, GValue * value);
void value_from (const std::string & member, GValue * value);
void value_from (const std::vector<float> & member, GValue * value);

template <typename Enum, std::enable_if_t<std::is_enum_v<Enum>, int> = 0>
void
value_into (const GValue * value, Enum & member)
{
  member = (Enum) g_value_get_enum (value);
}

template <typename Enum, std::enable_if_t<std::is_enum_v<Enum>, int> = 0>
void
value_from (Enum member, GValue * value)
{
  g_value_set_enum (value, (gint) member);
}

/* The flags of the elements' read-write properties, by when a new value takes effect: at the
 * next frame (MUTABLE_PLAYING), also driven by a GstController (CONTROLLABLE: the base classes
 * sync controlled values per frame), or at the next caps (MUTABLE_READY: what caps set up
 * depends on it). */
constexpr GParamFlags PROPERTY_PLAYING = (GParamFlags) (G_PARAM_READWRITE |
    G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr GParamFlags PROPERTY_CONTROLLABLE = (GParamFlags) (PROPERTY_PLAYING |
    GST_PARAM_CONTROLLABLE);
constexpr GParamFlags PROPERTY_READY = (GParamFlags) (G_PARAM_READWRITE |
    G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

/* The floats of a GstValueArray property value (elements of any type that converts to float);
 * and back. */
std::vector<float> float_array_from_value (const GValue * value);
void float_array_to_value (const std::vector<float> & values, GValue * value);

/* The spec of a property held in a std::vector<float> (a GstValueArray of floats of any value):
 * filter taps. */
GParamSpec *float_array_spec (const char *name, const char *nick, const char *blurb,
    GParamFlags flags);

/* The GType of an element's enum property: registered as `name` with `values` (no terminator)
 * on the first call, the registered type on later ones; thread-safe. */
GType enum_type (const char *name, std::initializer_list<GEnumValue> values);

/* The debug line of a property set from outside (name and new value). */
void log_property_set (GObject * object, GParamSpec * pspec, const GValue * value);


/* A class's properties, a row each: installed with consecutive ids as they are added. of ()
 * makes the table of a class on its first call and points the class's set_property and
 * get_property at the table; GObject hands each set or get to the class that installed the
 * property, so a base's rows and a subclass's rows live in two tables and never meet. */
class PropertyTable
{
public:
  using Set = std::function<void (GObject *, const GValue *)>;
  using Get = std::function<void (GObject *, GValue *)>;

  static PropertyTable & of (GObjectClass * klass);

  /* Installs `spec` with the next id. `set` is null for a read-only property. */
  PropertyTable & add (GParamSpec * spec, Set set, Get get);

private:
  struct Row
  {
    Set set;
    Get get;
  };

  explicit PropertyTable (GObjectClass * klass) : klass_ (klass) {}
  static PropertyTable *owner_of (GParamSpec * pspec);
  const Row *row (guint prop_id) const;
  static void set_property (GObject * object, guint prop_id, const GValue * value,
      GParamSpec * pspec);
  static void get_property (GObject * object, guint prop_id, GValue * value,
      GParamSpec * pspec);

  GObjectClass *klass_;
  std::vector<Row> rows_;
};

/* An element's private part, as most elements have it: its settings (written by property sets,
 * read by frames, both under `lock`) and the state of its run (streaming thread only), which
 * drop_run () forgets when the element stops. */
template <typename Settings, typename State>
struct ElementImpl
{
  std::mutex lock;
  Settings settings;
  State state;

  void drop_run () { state = State (); }
};

/* Built once in class_init: rows of PropertyTable::of (klass) bound to the members of the
 * element's Settings, and the class's finalize (which deletes `impl`, so the element's _init
 * only creates it). A set value is stored under the Impl's lock, then its effect (if any) runs
 * outside the lock; frames copy the settings under the lock, so it takes effect at the next
 * frame. */
template <typename Element>
class ElementProperties
{
public:
  using Impl = std::remove_pointer_t<decltype (Element::impl)>;
  using Settings = decltype (Impl::settings);
  using Setter = std::function<void (Settings &, const GValue *)>;
  using Getter = std::function<void (const Impl &, GValue *)>;
  using Effect = std::function<void (GObject *, const GValue *)>;

  explicit ElementProperties (GObjectClass * klass)
      : table_ (PropertyTable::of (klass))
  {
    parent_finalize () = G_OBJECT_CLASS (g_type_class_peek_parent (klass))->finalize;
    klass->finalize = finalize;
  }

  /* A property held in a member of Settings. */
  template <typename T>
  ElementProperties & add (GParamSpec * spec, T Settings::*member, Effect effect = nullptr)
  {
    return add (spec, [member] (Settings & settings, const GValue * value) {
          value_into (value, settings.*member);
        }, [member] (const Impl & impl, GValue * value) {
          value_from (impl.settings.*member, value);
        }, std::move (effect));
  }

  /* A property held in element `index` of an array member of Settings. */
  template <typename T, std::size_t N>
  ElementProperties & add (GParamSpec * spec, T (Settings::*member)[N], std::size_t index)
  {
    return add (spec, [member, index] (Settings & settings, const GValue * value) {
          value_into (value, (settings.*member)[index]);
        }, [member, index] (const Impl & impl, GValue * value) {
          value_from ((impl.settings.*member)[index], value);
        });
  }

  /* A read-only property: what the element reports (read under the lock). */
  ElementProperties & add_read_only (GParamSpec * spec, Getter get)
  {
    return add (spec, nullptr, std::move (get));
  }

  /* Any other: how it is stored and how it is read. */
  ElementProperties & add (GParamSpec * spec, Setter set, Getter get, Effect effect = nullptr)
  {
    PropertyTable::Set set_row;
    if (set) {
      set_row = [set = std::move (set), effect = std::move (effect)] (GObject * object,
          const GValue * value) {
        Impl *impl = impl_of (object);
        {
          std::lock_guard<std::mutex> lock (impl->lock);
          set (impl->settings, value);
        }
        if (effect)
          effect (object, value);
      };
    }
    table_.add (spec, std::move (set_row), [get = std::move (get)] (GObject * object,
            GValue * value) {
          Impl *impl = impl_of (object);
          std::lock_guard<std::mutex> lock (impl->lock);
          get (*impl, value);
        });
    return *this;
  }

private:
  static GObjectFinalizeFunc & parent_finalize ()
  {
    static GObjectFinalizeFunc parent = nullptr;
    return parent;
  }

  static Impl *impl_of (GObject * object)
  {
    return reinterpret_cast<Element *> (object)->impl;
  }

  static void finalize (GObject * object)
  {
    delete impl_of (object);
    parent_finalize () (object);
  }

  PropertyTable & table_;
};

/* Chains the class's stop (GstBaseTransform or GstBaseSrc) to `impl->drop_run ()` first: an
 * Impl's kernels, buffers and ports belong to the context of this run, so they are dropped
 * before the base lets the context go; none outlives it, and the next start (perhaps on another
 * context) builds its own. */
template <typename Element, typename Base>
struct StopDroppingRun
{
  static inline gboolean (*parent_stop) (Base *) = nullptr;

  static gboolean stop (Base * base)
  {
    reinterpret_cast<Element *> (base)->impl->drop_run ();
    return parent_stop (base);
  }
};

/* The instance type of a base class's class: GstBaseTransform of GstBaseTransformClass. */
template <typename BaseClass> struct InstanceOf;
template <> struct InstanceOf<GstBaseTransformClass> { using type = GstBaseTransform; };
template <> struct InstanceOf<GstBaseSrcClass> { using type = GstBaseSrc; };

template <typename Element, typename BaseClass>
void
stop_drops_run (BaseClass * klass)
{
  using Stop = StopDroppingRun<Element, typename InstanceOf<BaseClass>::type>;
  Stop::parent_stop = static_cast<BaseClass *> (g_type_class_peek_parent (klass))->stop;
  klass->stop = Stop::stop;
}

/* What every element's class_init starts with: its debug category made, and its stop chained to
 * drop_run (a source's GstBaseSrc stop or a transform's GstBaseTransform stop). */
template <typename Element, typename ElementClass>
void
element_class_setup (ElementClass * klass, GstDebugCategory *& category, const char *name,
    const char *description)
{
  GST_DEBUG_CATEGORY_INIT (category, name, 0, description);
  if (G_TYPE_CHECK_CLASS_TYPE (klass, GST_TYPE_BASE_SRC))
    stop_drops_run<Element> (GST_BASE_SRC_CLASS (klass));
  else
    stop_drops_run<Element> (GST_BASE_TRANSFORM_CLASS (klass));
}

/* element_class_setup (), then the rows of the element's properties to add to. */
template <typename Element, typename ElementClass>
ElementProperties<Element>
element_class_begin (ElementClass * klass, GstDebugCategory *& category, const char *name,
    const char *description)
{
  element_class_setup<Element> (klass, category, name, description);
  return ElementProperties<Element> (G_OBJECT_CLASS (klass));
}

}  // namespace gst_opencl

/* The GObject frame of an element: its instance (the parent's and a pointer to its private Impl,
 * which ElementProperties deletes at finalize), its type and its registration under `factory`;
 * GST_OPENCL_DEFINE_ELEMENT adds its instance init, which makes the Impl (an element defined with
 * GST_OPENCL_DEFINE_ELEMENT_TYPE writes its own). */
#define GST_OPENCL_ELEMENT_INSTANCE(TypeName, Parent, Impl) \
  struct _##TypeName \
  { \
    Parent parent; \
    Impl *impl; \
  }

#define GST_OPENCL_DEFINE_ELEMENT_TYPE(TypeName, type_name, Parent, parent_type, Impl, factory, \
    type) \
  GST_OPENCL_ELEMENT_INSTANCE (TypeName, Parent, Impl); \
  G_DEFINE_TYPE (TypeName, type_name, parent_type); \
  GST_ELEMENT_REGISTER_DEFINE (factory, #factory, GST_RANK_NONE, type)

#define GST_OPENCL_DEFINE_ELEMENT(TypeName, type_name, Parent, parent_type, Impl, factory, type) \
  GST_OPENCL_DEFINE_ELEMENT_TYPE (TypeName, type_name, Parent, parent_type, Impl, factory, type); \
  static void \
  type_name##_init (TypeName * self) \
  { \
    self->impl = new Impl (); \
  }
