//! The Vulkan loader, the instance, and the validation layer's message collector.

use std::ffi::{c_void, CStr};
use std::sync::{Mutex, PoisonError};

use ash::vk;

use crate::error::{DriverError, VkContext};
use crate::info::ApiVersion;

/// The name of the Khronos validation layer.
pub(crate) const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

#[cfg(windows)]
const LOADER_FILE: &str = "vulkan-1.dll";
#[cfg(any(target_os = "macos", target_os = "ios"))]
const LOADER_FILE: &str = "libvulkan.dylib";
#[cfg(any(target_os = "android", target_os = "fuchsia"))]
const LOADER_FILE: &str = "libvulkan.so";
#[cfg(not(any(
    windows,
    target_os = "macos",
    target_os = "ios",
    target_os = "android",
    target_os = "fuchsia"
)))]
const LOADER_FILE: &str = "libvulkan.so.1";

/// One message from the validation layer (or the loader, through the same messenger).
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub is_error: bool,
    pub text: String,
}

/// Whether any message is an error, and every message's text.
pub(crate) fn split(messages: Vec<Message>) -> (bool, Vec<String>) {
    let any_error = messages.iter().any(|m| m.is_error);
    (any_error, messages.into_iter().map(|m| m.text).collect())
}

/// Where the debug-utils callback puts messages. It lives in a `Box` so its address is stable
/// for as long as the messenger (and the instance, which also reports through it) exists.
#[derive(Debug, Default)]
pub(crate) struct MessageSink {
    messages: Mutex<Vec<Message>>,
}

impl MessageSink {
    fn push(&self, m: Message) {
        self.messages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(m);
    }

    /// Takes every message collected so far.
    pub fn take(&self) -> Vec<Message> {
        std::mem::take(&mut *self.messages.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: `user` is the `MessageSink` address given at messenger creation; the sink is
    // kept alive (boxed, owned by `Instance`) until after the messenger and instance are gone.
    let sink = unsafe { &*(user as *const MessageSink) };
    let (id, text) = if data.is_null() {
        (String::new(), String::from("(no message data)"))
    } else {
        // SAFETY: the layer passes a valid callback-data struct for the duration of the call.
        let data = unsafe { &*data };
        // SAFETY: the strings are null or NUL-terminated, valid during the call.
        let id = unsafe { data.message_id_name_as_c_str() }
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SAFETY: as above.
        let text = unsafe { data.message_as_c_str() }
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        (id, text)
    };
    let is_error = severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR);
    let level = if is_error { "error" } else { "warning" };
    let kind = if types.contains(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION) {
        "validation"
    } else if types.contains(vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE) {
        "performance"
    } else {
        "general"
    };
    let text = if id.is_empty() || text.contains(&id) {
        format!("[{level}/{kind}] {text}")
    } else {
        format!("[{level}/{kind}] {id}: {text}")
    };
    sink.push(Message { is_error, text });
    vk::FALSE
}

fn messenger_info(sink: &MessageSink) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(debug_callback))
        .user_data(sink as *const MessageSink as *mut c_void)
}

struct Debug {
    loader: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
}

/// A loaded loader and a created instance. Dropping it destroys the messenger and the
/// instance (everything created from the instance must be gone by then).
pub(crate) struct Instance {
    // Field order matters only for the implicit drops after `Drop::drop`: the entry (the
    // loader library) goes last.
    pub instance: ash::Instance,
    /// The Vulkan version the instance was created for.
    pub version: ApiVersion,
    debug: Option<Debug>,
    /// Boxed so its address stays fixed; read by `debug_callback`.
    pub sink: Option<Box<MessageSink>>,
    pub entry: ash::Entry,
}

impl Instance {
    /// Loads the loader and creates an instance, with the validation layer and a message
    /// collector when `validation` is true.
    pub fn new(validation: bool) -> Result<Instance, DriverError> {
        // SAFETY: loading the system Vulkan loader runs its initialisers, which are sound; the
        // `Entry` is kept until every object made through it is destroyed (or leaked with it).
        let entry = unsafe { ash::Entry::load() }.map_err(|e| DriverError::NoVulkan {
            library: LOADER_FILE,
            reason: e.to_string(),
        })?;

        // SAFETY: a global command; the entry is loaded.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .call("vkEnumerateInstanceVersion")?
            .unwrap_or(vk::API_VERSION_1_0);
        let loader_version = ApiVersion::from_raw(loader_version);
        if !loader_version.at_least(1, 1) {
            return Err(DriverError::Unsupported(format!(
                "the Vulkan loader supports Vulkan {loader_version}; this crate needs 1.1 or later"
            )));
        }
        let api = if loader_version.at_least(1, 3) {
            vk::API_VERSION_1_3
        } else {
            vk::make_api_version(0, loader_version.major, loader_version.minor, 0)
        };

        // SAFETY: a global command; the entry is loaded.
        let available = unsafe { entry.enumerate_instance_extension_properties(None) }
            .call("vkEnumerateInstanceExtensionProperties")?;
        let has_ext = |list: &[vk::ExtensionProperties], name: &CStr| {
            list.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };

        let mut extensions: Vec<*const std::ffi::c_char> = Vec::new();
        let mut layers: Vec<*const std::ffi::c_char> = Vec::new();
        let mut flags = vk::InstanceCreateFlags::empty();
        if has_ext(&available, ash::khr::portability_enumeration::NAME) {
            extensions.push(ash::khr::portability_enumeration::NAME.as_ptr());
            flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
        }

        let mut sync_validation = false;
        let sink = if validation {
            // SAFETY: a global command; the entry is loaded.
            let layer_list = unsafe { entry.enumerate_instance_layer_properties() }
                .call("vkEnumerateInstanceLayerProperties")?;
            let present = layer_list
                .iter()
                .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if !present {
                return Err(DriverError::ValidationUnavailable(format!(
                    "the layer {} is not installed (the loader lists: {})",
                    VALIDATION_LAYER.to_string_lossy(),
                    layer_list
                        .iter()
                        .map(|l| cstr_lossy(l.layer_name_as_c_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            // SAFETY: a global command; the layer name is a valid C string.
            let layer_exts =
                unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }
                    .call("vkEnumerateInstanceExtensionProperties(validation layer)")?;
            if !has_ext(&available, ash::ext::debug_utils::NAME)
                && !has_ext(&layer_exts, ash::ext::debug_utils::NAME)
            {
                return Err(DriverError::ValidationUnavailable(
                    "neither the loader nor the layer offers VK_EXT_debug_utils".into(),
                ));
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
            if has_ext(&layer_exts, ash::ext::validation_features::NAME) {
                extensions.push(ash::ext::validation_features::NAME.as_ptr());
                sync_validation = true;
            }
            Some(Box::new(MessageSink::default()))
        } else {
            None
        };

        let app = vk::ApplicationInfo::default()
            .application_name(c"ps5-gpu-conformance driver")
            .engine_name(c"driver")
            .api_version(api);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut create_messenger = sink.as_deref().map(messenger_info);
        let mut create = vk::InstanceCreateInfo::default()
            .flags(flags)
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if let Some(m) = create_messenger.as_mut() {
            // Chained so that messages from vkCreateInstance/vkDestroyInstance are collected.
            create = create.push_next(m);
        }
        if sync_validation {
            create = create.push_next(&mut features);
        }
        // SAFETY: every pointer in `create` (names, app info, chained structs, the sink) is
        // alive for the call; the sink outlives the instance (see `Drop`).
        let instance = unsafe { entry.create_instance(&create, None) }.map_err(|r| match r {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => DriverError::NoDevice,
            vk::Result::ERROR_LAYER_NOT_PRESENT => DriverError::ValidationUnavailable(
                "vkCreateInstance says the layer is not present".into(),
            ),
            r => DriverError::vk("vkCreateInstance", r),
        })?;

        let mut me = Instance {
            instance,
            version: ApiVersion::from_raw(api),
            debug: None,
            sink,
            entry,
        };
        if let Some(sink) = me.sink.as_deref() {
            let loader = ash::ext::debug_utils::Instance::new(&me.entry, &me.instance);
            let info = messenger_info(sink);
            // SAFETY: the instance has VK_EXT_debug_utils enabled; the sink outlives the
            // messenger (destroyed in `Drop` before the sink is freed).
            let messenger = unsafe { loader.create_debug_utils_messenger(&info, None) }
                .call("vkCreateDebugUtilsMessengerEXT")?;
            me.debug = Some(Debug { loader, messenger });
        }
        Ok(me)
    }

    /// Every physical device, in the loader's order.
    pub fn physical_devices(&self) -> Result<Vec<vk::PhysicalDevice>, DriverError> {
        // SAFETY: the instance is alive.
        let list = unsafe { self.instance.enumerate_physical_devices() }.map_err(|r| match r {
            vk::Result::ERROR_INITIALIZATION_FAILED => DriverError::NoDevice,
            r => DriverError::vk("vkEnumeratePhysicalDevices", r),
        })?;
        if list.is_empty() {
            return Err(DriverError::NoDevice);
        }
        Ok(list)
    }

    /// Takes the messages collected so far (none without validation).
    pub fn take_messages(&self) -> Vec<Message> {
        self.sink
            .as_deref()
            .map(MessageSink::take)
            .unwrap_or_default()
    }

    /// True when the validation layer is on.
    pub fn validation(&self) -> bool {
        self.sink.is_some()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(d) = self.debug.take() {
            // SAFETY: the messenger was created from this instance and is destroyed once.
            unsafe { d.loader.destroy_debug_utils_messenger(d.messenger, None) };
        }
        // SAFETY: every child object has been destroyed by the owner (`Context` destroys its
        // device first); the sink is still alive for messages sent during destruction.
        unsafe { self.instance.destroy_instance(None) };
    }
}

pub(crate) fn cstr_lossy(r: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    r.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}
