//! TUN devices: a file descriptor that reads and writes whole IP packets.
//!
//! [`Tun::create`] opens it with `IFF_TUN | IFF_NO_PI` (include/uapi/linux/if_tun.h; the
//! kernel side is drivers/net/tun.c) [LINUX-TUN]: no packet-information prefix and no
//! virtio-net header, so one `read` returns exactly one IP packet and one `write` injects
//! one. Without `IFF_VNET_HDR` the device cannot advertise TSO/GSO offloads to the stack,
//! so the kernel segments before the device and no super-packets reach us.
//!
//! [`Tun::create_with_offload`] adds `IFF_VNET_HDR` and the offloads: every read and
//! write then starts with a 10-byte `struct virtio_net_hdr` [VIRTIO-NET-HDR], a read may
//! be a TCP super-packet of up to 64 kB, and a write may be one; [`crate::offload`]
//! splits and builds them.
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
/// Prefix every packet with a `struct virtio_net_hdr` (include/uapi/linux/if_tun.h).
const IFF_VNET_HDR: libc::c_short = 0x4000;
/// `TUNSETOFFLOAD` = `_IOW('T', 208, unsigned int)`; the argument is the `TUN_F_*` mask
/// itself, not a pointer (include/uapi/linux/if_tun.h, `set_offload` in drivers/net/tun.c).
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0;
/// `TUNSETVNETHDRSZ` = `_IOW('T', 216, int)`, argument a pointer to the size.
const TUNSETVNETHDRSZ: libc::c_ulong = 0x4004_54d8;
/// `TUNSETVNETLE` = `_IOW('T', 220, int)`, argument a pointer to a boolean: the header's
/// 16-bit fields little-endian whatever the host (drivers/net/tun_vnet.h accepts it
/// unconditionally; only the big-endian switch depends on the kernel's configuration).
const TUNSETVNETLE: libc::c_ulong = 0x4004_54dc;
/// `TUN_F_CSUM`: we complete checksums, so the kernel may hand over packets whose
/// checksum is only begun (include/uapi/linux/if_tun.h).
const TUN_F_CSUM: libc::c_uint = 0x01;
/// `TUN_F_TSO4`: we segment IPv4 TCP, so the kernel may hand over super-packets; only
/// honoured together with `TUN_F_CSUM` (include/uapi/linux/if_tun.h).
const TUN_F_TSO4: libc::c_uint = 0x02;
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
    /// Bytes of virtio-net header before every packet: 0, or
    /// [`VNET_HDR_BYTES`](crate::offload::VNET_HDR_BYTES) with offloads.
    vnet_hdr_bytes: usize,
}

impl Tun {
    /// Creates the TUN device `name` (1–15 bytes) and opens it non-blocking; reads and
    /// writes are bare IP packets.
    pub fn create(name: &str) -> io::Result<Tun> {
        Tun::open(name, IFF_TUN | IFF_NO_PI)
    }

    /// Creates the TUN device `name` with a virtio-net header of
    /// [`VNET_HDR_BYTES`](crate::offload::VNET_HDR_BYTES) (little-endian) before every
    /// packet read or written, and the checksum and IPv4 TCP segmentation offloads: the
    /// kernel may hand over TCP super-packets and packets with a begun checksum, and
    /// accepts super-packets (see [`crate::offload`]).
    pub fn create_with_offload(name: &str) -> io::Result<Tun> {
        let mut tun = Tun::open(name, IFF_TUN | IFF_NO_PI | IFF_VNET_HDR)?;
        let fd = tun.fd();
        let size = crate::offload::VNET_HDR_BYTES as libc::c_int;
        let little_endian: libc::c_int = 1;
        // SAFETY: both ioctls read one `int` through the pointer, which is valid.
        let rc = unsafe { libc::ioctl(fd, TUNSETVNETHDRSZ as _, &size) };
        check(rc, "TUNSETVNETHDRSZ")?;
        // SAFETY: as above.
        let rc = unsafe { libc::ioctl(fd, TUNSETVNETLE as _, &little_endian) };
        check(rc, "TUNSETVNETLE")?;
        // SAFETY: TUNSETOFFLOAD takes its argument by value.
        let rc = unsafe { libc::ioctl(fd, TUNSETOFFLOAD as _, TUN_F_CSUM | TUN_F_TSO4) };
        check(rc, "TUNSETOFFLOAD")?;
        tun.vnet_hdr_bytes = crate::offload::VNET_HDR_BYTES;
        Ok(tun)
    }

    fn open(name: &str, flags: libc::c_short) -> io::Result<Tun> {
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
            flags,
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
            vnet_hdr_bytes: 0,
        })
    }

    /// Bytes of virtio-net header before every packet read or written: 0 for a device
    /// made by [`Tun::create`].
    pub fn vnet_hdr_bytes(&self) -> usize {
        self.vnet_hdr_bytes
    }

    /// The device name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads one packet (after its virtio-net header on an offload device) into `buf`,
    /// which must hold the longest ([`MAX_FRAME_BYTES`](crate::offload::MAX_FRAME_BYTES)
    /// with offloads, or the kernel truncates); `Ok(None)` when none is waiting.
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

    /// Writes one packet (after its virtio-net header on an offload device). The kernel takes a TUN write whole or refuses it.
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

/// An ioctl's result as an error naming it.
fn check(rc: libc::c_int, what: &str) -> io::Result<()> {
    if rc < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(())
}
