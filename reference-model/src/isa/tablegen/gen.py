import json, re, sys
from learn import split_ops
CPUS=('gfx1013','gfx1030')
# table name -> (json file, json key, nwords, fields {name:(word,lo,width,role,kind)}, strip-suffix)
V=lambda w,lo,wd,role,kind:(w,lo,wd,role,kind)
VOPF={'vdst':V(0,17,8,'Vdst','V'),'src0':V(0,0,9,'Src0','Src'),'vsrc1':V(0,9,8,'Src1','V')}
VOP3F={'vdst':V(0,0,8,'Vdst','V'),'sdst':V(0,8,7,'Sdst','S'),'src0':V(1,0,9,'Src0','Src'),'src1':V(1,9,9,'Src1','Src'),'src2':V(1,18,9,'Src2','Src')}
DPPF={'vdst':V(0,17,8,'Vdst','V'),'dsrc0':V(1,0,8,'Src0','V'),'vsrc1':V(0,9,8,'Src1','V')}
SDWAF={'vdst':V(0,17,8,'Vdst','V'),'dsrc0':V(1,0,8,'Src0','Src'),'vsrc1':V(0,9,8,'Src1','Src')}
TABLES={}
def T(name,file,key,nw,fields,size): TABLES[name]=(file,key,nw,fields,size)
T('Vop1','vop_learn.json','VOP1',1,VOPF,256)
T('Vop2','vop_learn.json','VOP2',1,VOPF,64)
T('Vopc','vop_learn.json','VOPC',1,VOPF,256)
T('Vop3','vop_learn.json','VOP3',2,VOP3F,1024)
T('Vop3p','vop_learn.json','VOP3P',2,VOP3F,128)
for f,fields in (('Dpp16',DPPF),('Dpp8',DPPF),('Sdwa',SDWAF)):
    for e in ('Vop1','Vop2','Vopc'):
        T(e+f,'dpp_learn.json',e.upper()+'_'+f.upper(),2,fields,256 if e!='Vop2' else 64)
extra=json.load(open('extra_tables.json')) if len(sys.argv)>1 else {}
def camel(mn):
    return ''.join(p[:1].upper()+p[1:] for p in mn.split('_'))
def base_name(mn):
    for s in ('_e32','_e64','_dpp','_sdwa'):
        if mn.endswith(s): return mn[:-len(s)]
    return mn
def clean(tok):
    t=tok.split('/*')[0].strip()
    t=t.replace('-','').replace('|','')
    return t
def width(tok):
    t=clean(tok)
    m=re.match(r'^[a-z]+\[(\d+):(\d+)\]$',t)
    if m: return int(m.group(2))-int(m.group(1))+1
    if t in ('vcc','exec'): return 2
    return 1
def imm_class(v):
    t=[clean(x) if x else None for x in v]
    if len(t)<10 or t[0] is None: return 'B32'
    if t[0]=='0.15915494309189532' and t[5] is None: return 'I64'
    if t[0].startswith('attr'): return 'Attr'
    if t[0].startswith('invalid_param'): return 'InterpParam'
    if t[0]=='0.15915494309189532': return 'F64' if t[5]=='0.5' else 'I64'
    if t[0]=='0x3118': return 'I16'
    if t[3]=='0': return 'F16'
    if t[3]=='0x3f000000': return 'V2F16'
    return 'B32'
BAD=[('','','','','',0)]
def bad_index(*k):
    if k not in BAD: BAD.append(k)
    return BAD.index(k)
def suffix(tok):
    if tok and '/*' in tok: return tok[tok.index('/*'):tok.rindex('*/')+2]
    return ''
OPS={}   # name -> index
ROWS={}  # (cpu, table) -> {op: rowtext}
TPLS={}
def tpl_id(toks):
    k=tuple(toks)
    if k not in TPLS: TPLS[k]=len(TPLS)
    return TPLS[k]
def op_of(mn):
    b=base_name(mn)
    if b not in OPS: OPS[b]=len(OPS)
    return camel(b)
def fieldmask(f):
    return (f[0], ((1<<f[2])-1)<<f[1])
FACTS={}
def process(cpu, tname, info, nw, fields):
    rows={}
    for op,d in info.items():
        mn,toks,mods=split_ops(d['text']); d['mn']=mn; d['toks']=toks; d['map']=d.get('map',{})
        mn=d['mn']; toks=d['toks']
        # token -> field
        owner={}
        cnt={}
        for fn,ch in d['map'].items():
            for c in ch:
                if isinstance(c,int): cnt[c]=cnt.get(c,0)+1
        # sdst bits double as abs/op_sel bits in VOP3a: a token a source field also changes is the source's.
        for fn,ch in d['map'].items():
            if fn not in fields or fn=='sdst': continue
            ints=[c for c in ch if isinstance(c,int)]
            if len(ints)==1 and ints[0] < len(toks):
                owner[ints[0]]=fn
        if tname in ('Sopp','Sopk') and toks and 'simm16' in d['map'] and 'mods' in d['map']['simm16'] and not any(isinstance(c,int) for c in d['map']['simm16']):
            # The whole immediate prints as space-separated fields (s_waitcnt_depctr): one operand.
            owner[0]='simm16'
            if mods: toks=[toks[0]+' '+mods]; d['toks']=toks
        ch=d['map'].get('sdst')
        if ch and 'sdst' in fields:
            ints=[c for c in ch if isinstance(c,int)]
            if len(ints)==1 and ints[0] < len(toks) and ints[0] not in owner and re.match(r'^(s|vcc|ttmp|exec|null|m0)',clean(toks[ints[0]])):
                owner[ints[0]]='sdst'
        out=[]; used=[0]*nw
        for i,tok in enumerate(toks):
            if i in owner:
                fn=owner[i]; w,lo,wd,role,kind=fields[fn]
                used[w]|=((1<<wd)-1)<<lo
                ct=clean(tok)
                if kind=='Simm':
                    import gen_other
                    kind='Simm(Style::%s)'%gen_other.style(mn,tok,tname)
                if kind=='S' and re.match(r'^-?\d+$',ct): kind='Simm(Style::HexSmall)'
                if kind=='V' and re.match(r'^(p10|p20|p0|invalid_param_\d+)$',ct): kind='Param'
                if kind=='V' and not ct.startswith('v'): kind='S'
                if fn=='sdst': kind='S'
                cls=imm_class(d.get('imm',{}).get(fn,[None]*10)) if kind=='Src' else 'B32'
                vs=suffix(tok) if ct.startswith('v') else ''
                imms=d.get('imm',{}).get(fn)
                lsuf=''; xs=[]
                if imms and len(imms)>=19:
                    isuf=suffix(imms[1]); ssuf=suffix(imms[10]); lsuf=suffix(imms[12])
                    xs=[imms[11]]+imms[13:19]
                elif imms and len(imms)==10:
                    isuf=suffix(imms[1]); ssuf=suffix(imms[0]); xs=imms[2:9]; lsuf=suffix(imms[9])
                else: isuf=ssuf=''
                xsuf=''; xmask=0
                for k,x in enumerate(xs):
                    if x and suffix(x):
                        xsuf=suffix(x); xmask|=1<<k
                b=bad_index(vs,isuf,ssuf,lsuf,xsuf,xmask)
                out.append('Tok::F { role: Role::%s, kind: Kind::%s, width: %d, class: ImmClass::%s, bad: %d }'%(role,kind,width(tok),cls,b))
            elif tname in ('Scratch','ScratchGlc') and tok=='off':
                # The learner's scratch base used saddr, which prints the vaddr field as `off`.
                out.append('Tok::F { role: Role::Vaddr, kind: Kind::V, width: 1, class: ImmClass::B32, bad: 0 }')
            elif tname=='Vop3' and re.match(r'^attr\d+\.[xyzw]$',clean(tok)):
                # The attribute of v_interp_*_f32_e64 sits in src0, which the learner zeroed.
                out.append('Tok::F { role: Role::Src0, kind: Kind::Src, width: 1, class: ImmClass::Attr, bad: 0 }')
            elif clean(tok)=='0x11' or (mn=='s_setreg_imm32_b32' and i==1):
                cls='B32'
                out.append('Tok::F { role: Role::K, kind: Kind::K, width: 1, class: ImmClass::%s, bad: 0 }'%cls)
            else:
                out.append('Tok::T(%s)'%json.dumps(tok))
        # masks: exclude used fields
        rej=d.get('rej',[0]*nw)
        must=[rej[i]&~used[i] for i in range(nw)]
        if tname.endswith('Sdwa'):
            # Select fields reject only their reserved values, which the decoder checks itself.
            free={'Vop1Sdwa':0x7<<8|0x3<<11|0x7<<16,'Vop2Sdwa':0x7<<8|0x3<<11|0x7<<16|0x7<<24,'VopcSdwa':0x7<<16|0x7<<24}[tname]
            must[1]&=~free
        want=[d['words'][i]&must[i] for i in range(nw)]
        show=[0]*nw
        for k in d.get('fliptext',{}):
            wi,b=map(int,k.split('.'))
            if not (used[wi]>>b)&1: show[wi]|=1<<b
        name=op_of(mn)
        FACTS.setdefault(base_name(mn),{})[tname]=out
        flags=0
        ft=d.get('fliptext',{})
        if 'sext(' in ft.get('1.20','') and tname.endswith('Dpp16'): flags|=1
        if 'sext(' in ft.get('1.22','') and tname.endswith('Dpp16'): flags|=2
        if tname=='Vop3':
            for k in range(4):
                t=ft.get('0.%d'%(11+k),'')
                if 'op_sel:[' in t:
                    n=t.split('op_sel:[')[1].split(']')[0].count(',')+1
                    flags|=n<<5
            for k in range(3):
                if 'sext(' in ft.get('1.%d'%(29+k),''): flags|=4<<k
        rows[int(op)]='Some(Row { op: Op::%s, mn: %s, tpl: &TPL_%d, must: [0x%x, 0x%x], want: [0x%x, 0x%x], show: [0x%x, 0x%x], flags: %d })'%(
            name, json.dumps(mn), tpl_id(out), must[0], must[1] if nw>1 else 0, want[0], want[1] if nw>1 else 0, show[0], show[1] if nw>1 else 0, flags)
    return rows
cache={}
import os
def load(f):
    if not os.path.exists(f): return {c:{} for c in CPUS}
    if f not in cache: cache[f]=json.load(open(f))
    return cache[f]
for tname,(file,key,nw,fields,size) in TABLES.items():
    for cpu in CPUS:
        info=load(file)[cpu].get(key,{})
        ROWS[(cpu,tname)]=(process(cpu,tname,info,nw,fields),size)
import gen_other
gen_other.run(ROWS, process, load, CPUS)
MIMG_LINES=gen_other.mimg(ROWS, op_of, tpl_id, CPUS, load)
# EXP has one operation and no table: make sure its Op exists.
op_of('exp')
o=[]
o.append('// @generated by probing llvm-mc 19 (see the isa module docs); do not edit by hand.\n')
o.append('/// Register-class comments LLVM appends: (after a VGPR, after an immediate, after an SGPR).')
o.append('/// (after a VGPR, after an immediate, after an SGPR, after lds_direct, after the special registers in the mask,')
o.append('/// mask over vcc_lo, vcc_hi, ttmp, m0, null, exec_lo, exec_hi).')
o.append('pub(crate) static BAD: [Bad; %d] = ['%len(BAD))
for b in BAD: o.append('    Bad { vgpr: %s, imm: %s, sgpr: %s, lds: %s, special: %s, special_mask: %s },'%tuple(json.dumps(x) for x in b))
o.append('];')
for k,i in TPLS.items():
    o.append('static TPL_%d: [Tok; %d] = [%s];'%(i,len(k),', '.join(k)))
for (cpu,tname),(rows,size) in ROWS.items():
    o.append('static %s_%s: [Option<Row>; %d] = ['%(tname.upper(),cpu.upper(),size))
    for i in range(size):
        o.append('    %s,'%rows.get(i,'None'))
    o.append('];')
o.extend(MIMG_LINES)
o.append('fn lookup(target: Target, table: Table) -> &\'static [Option<Row>] {')
o.append('    match (target, table) {')
tn=set(t for (c,t) in ROWS)
for (cpu,tname) in ROWS:
    o.append('        (Target::%s, Table::%s) => &%s_%s,'%(cpu.capitalize(),tname,tname.upper(),cpu.upper()))
pass
o.append('    }\n}')
open(os.environ.get('ISA_OUT', os.path.dirname(os.path.abspath(__file__))+'/..')+'/gen_tables.rs','w').write('\n'.join(o)+'\n')
# op enum
o=['// @generated by probing llvm-mc 19 (see the isa module docs); do not edit by hand.\n','use super::OpFacts;\n']
o.append('/// Every gfx10 operation of gfx1013 and gfx1030, one variant per LLVM mnemonic (without the _e32/_e64/_dpp/_sdwa')
o.append('/// form suffix): the VOP1/VOP2/VOPC form and its VOP3, DPP and SDWA forms are one variant.')
o.append('#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]')
o.append('#[repr(u16)]')
o.append('pub enum Op {')
names=sorted(OPS, key=lambda n:n)
for n in names:
    o.append('    /// `%s`'%n)
    o.append('    %s,'%camel(n))
o.append('}\n')
o.append('/// LLVM mnemonics, indexed by `Op as usize`.')
o.append('pub(crate) static MNEMONICS: [&str; %d] = ['%len(names))
for n in names: o.append('    %s,'%json.dumps(n))
o.append('];\n')
PREF=['Vop3','Vop3p','Vop2','Vop1','Vopc','Sop2','Sop1','Sopc','Sopk','Sopp','Smem','Ds','Mubuf','Mtbuf','Flat','Global','Scratch','Vintrp']
def facts(n):
    f=FACTS.get(n,{})
    toks=None
    for t in PREF:
        if t in f: toks=f[t]; break
    if toks is None and f: toks=list(f.values())[0]
    srcs=[0,0,0]; nsrc=0; dst=0; sdst=0; vcc=False; data=0
    for t in toks or []:
        m=re.match(r'Tok::F \{ role: Role::(\w+), kind: Kind::([\w:()]+), width: (\d+)',t)
        if not m:
            if 'vcc' in t: vcc=True
            continue
        role,kind,w=m.group(1),m.group(2),int(m.group(3))
        if role in ('Src0','Src1','Src2'):
            srcs[int(role[3])]=w; nsrc=max(nsrc,int(role[3])+1)
        elif role=='Vdst' or (role=='Sdst' and dst==0 and not any('Role::Vdst' in x for x in toks)):
            dst=w
        elif role=='Sdst':
            sdst=w
        elif role=='Vdata':
            data=w
    return 'OpFacts { sources: %d, dst_dwords: %d, src_dwords: [%d, %d, %d], sdst_dwords: %d, data_dwords: %d, implicit_vcc: %s }'%(nsrc,dst,srcs[0],srcs[1],srcs[2],sdst,data,'true' if vcc else 'false')
o.append('/// Static operand facts, indexed by `Op as usize` (from the VOP3 form where an operation has one).')
o.append('pub(crate) static FACTS: [OpFacts; %d] = ['%len(names))
for n in names: o.append('    %s,'%facts(n))
o.append('];\n')
o.append('/// Every operation, in `Op` order.')
o.append('pub static ALL_OPS: [Op; %d] = ['%len(names))
for n in names: o.append('    Op::%s,'%camel(n))
o.append('];')
open(os.environ.get('ISA_OUT', os.path.dirname(os.path.abspath(__file__))+'/..')+'/op.rs','w').write('\n'.join(o)+'\n')
print(len(names),'ops',len(TPLS),'templates')
