//! TUN devices: a file descriptor that reads and writes whole IP packets.
//!
//! Opened with `IFF_TUN | IFF_NO_PI` (include/uapi/linux/if_tun.h; the kernel side is
//! drivers/net/tun.c): no packet-information prefix and no virtio-net header, so one
//! `read` returns exactly one IP packet and one `write` injects one. Without
//! `IFF_VNET_HDR` the device cannot advertise TSO/GSO offloads to the stack, so the kernel
//! segments before the device and no super-packets reach us.
//!
//! The descriptor is non-blocking; the forwarder polls it. Moving the device into another
//! network namespace (`ip link set DEV netns NS`) keeps the descriptor working: it is
//! bound to the device, not to the namespace. Closing it removes the device (it is not
//! made persistent).

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

/// `TUNSETIFF` = `_IOW('T', 202, int)` (include/uapi/linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
/// A layer-3 device (include/uapi/linux/if_tun.h).
const IFF_TUN: libc::c_short = 0x0001;
/// No 4-byte packet-information prefix on reads and writes.
const IFF_NO_PI: libc::c_short = 0x1000;
/// Longest interface name, including the terminating NUL (include/uapi/linux/if.h).
pub const IFNAMSIZ: usize = 16;

/// `struct ifreq` restricted to the name and the flags member of its union; 40 bytes on
/// every 64-bit Linux ABI, like the real one.
#[repr(C)]
struct IfReqFlags {
    name: [u8; IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// An open TUN device.
pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Creates the TUN device `name` (1–15 bytes) and opens it non-blocking.
    pub fn create(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= IFNAMSIZ || CString::new(name).is_err() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("TUN name `{name}`: expected 1 to 15 bytes without NUL"),
            ));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")?;
        let mut req = IfReqFlags {
            name: [0; IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads and writes one `struct ifreq`; `req` is a valid,
        // writable buffer of the same size and layout for the members the ioctl uses.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tun {
            file,
            name: name.to_owned(),
        })
    }

    /// The device name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads one packet into `buf`; `Ok(None)` when none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
        let n = unsafe { libc::read(self.fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        }
    }

    /// Writes one packet. The kernel takes a TUN write whole or refuses it.
    pub fn send(&self, packet: &[u8]) -> io::Result<()> {
        // SAFETY: `packet` is valid for reads of `packet.len()` bytes.
        let n = unsafe { libc::write(self.fd(), packet.as_ptr().cast(), packet.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The raw descriptor, for polling.
    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
}
