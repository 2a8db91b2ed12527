import re
V=lambda w,lo,wd,role,kind:(w,lo,wd,role,kind)
FAM={
 'Sop2':('SOP2',1,{'sdst':V(0,16,7,'Sdst','S'),'ssrc0':V(0,0,8,'Src0','Src'),'ssrc1':V(0,8,8,'Src1','Src')},128),
 'Sopk':('SOPK',1,{'sdst':V(0,16,7,'Sdst','S'),'simm16':V(0,0,16,'Simm16','Simm')},32),
 'Sop1':('SOP1',1,{'sdst':V(0,16,7,'Sdst','S'),'ssrc0':V(0,0,8,'Src0','Src')},256),
 'Sopc':('SOPC',1,{'ssrc0':V(0,0,8,'Src0','Src'),'ssrc1':V(0,8,8,'Src1','Src')},128),
 'Sopp':('SOPP',1,{'simm16':V(0,0,16,'Simm16','Simm')},128),
 'Smem':('SMEM',2,{'sdata':V(0,6,7,'Sdst','S'),'sbase':V(0,0,6,'Sbase','Sx2'),'offset':V(1,0,21,'Soffset','SmemOff'),'soffset':V(1,25,7,'Soffset','SmemOff')},256),
 'Vintrp':('VINTRP',1,{'vdst':V(0,18,8,'Vdst','V'),'vsrc':V(0,0,8,'Src0','V'),'attr':V(0,10,6,'Attr','Attr'),'chan':V(0,8,2,'Attr','Attr')},4),
 'Ds':('DS',2,{'addr':V(1,0,8,'Vaddr','V'),'data0':V(1,8,8,'Vdata','V'),'data1':V(1,16,8,'Vdata1','V'),'vdst':V(1,24,8,'Vdst','V'),'offset0':V(0,0,8,'Simm16','Off'),'offset1':V(0,8,8,'Simm16','Off')},256),
 'Mubuf':('MUBUF',2,{'vaddr':V(1,0,8,'Vaddr','V'),'vdata':V(1,8,8,'Vdata','V'),'srsrc':V(1,16,5,'Srsrc','Sx4'),'soffset':V(1,24,8,'Soffset','Src'),'offset':V(0,0,12,'Simm16','Off')},256),
 'Mtbuf':('MTBUF',2,{'vaddr':V(1,0,8,'Vaddr','V'),'vdata':V(1,8,8,'Vdata','V'),'srsrc':V(1,16,5,'Srsrc','Sx4'),'soffset':V(1,24,8,'Soffset','Src'),'offset':V(0,0,12,'Simm16','Off'),'format':V(0,19,7,'Simm16','Off')},16),
 'Flat':('FLAT',2,{'addr':V(1,0,8,'Vaddr','V'),'data':V(1,8,8,'Vdata','V'),'saddr':V(1,16,7,'Sbase','S'),'vdst':V(1,24,8,'Vdst','V'),'offset':V(0,0,12,'Simm16','Off')},128),
 'Global':('GLOBAL',2,{'addr':V(1,0,8,'Vaddr','V'),'data':V(1,8,8,'Vdata','V'),'saddr':V(1,16,7,'Sbase','S'),'vdst':V(1,24,8,'Vdst','V'),'offset':V(0,0,12,'Simm16','Off')},128),
 'Scratch':('SCRATCH',2,{'addr':V(1,0,8,'Vaddr','V'),'data':V(1,8,8,'Vdata','V'),'saddr':V(1,16,7,'Sbase','S'),'vdst':V(1,24,8,'Vdst','V'),'offset':V(0,0,12,'Simm16','Off')},128),
 'FlatGlc':('FLAT_GLC',2,None,128),'GlobalGlc':('GLOBAL_GLC',2,None,128),'ScratchGlc':('SCRATCH_GLC',2,None,128),
}
DEC={'s_branch','s_call_b64','s_subvector_loop_begin','s_subvector_loop_end','s_endpgm'}
HEX={'s_inst_prefetch','s_clause','s_round_mode','s_ttracedata_imm'}
def style(mn,tok,fam):
    if 'vmcnt' in tok: return 'Waitcnt'
    if 'sendmsg' in tok: return 'Sendmsg'
    if 'depctr' in tok: return 'Depctr'
    if 'hwreg' in tok: return 'Hwreg'
    if mn=='s_version': return 'Version'
    if mn=='s_endpgm': return 'Endpgm'
    if mn in DEC or mn.startswith('s_cbranch'): return 'Dec'
    if mn in HEX or fam=='Sopk': return 'Hex'
    return 'HexSmall'
def run(ROWS, process, load, CPUS):
    for tname,(key,nw,fields,size) in FAM.items():
        if fields is None: fields=FAM[tname[:-3]][2]
        for cpu in CPUS:
            info=load('other_learn.json')[cpu].get(key,{})
            ROWS[(cpu,tname)]=(process(cpu,tname,info,nw,fields),size)

def mimg(ROWS, op_of, tpl_id, CPUS, load):
    """MIMG: one row per opcode (mnemonic, canonical masks) plus address/data width facts."""
    import json
    d=load('mimg_learn.json')
    infos={}
    for cpu in CPUS:
        rows={}; info={}
        for op,i in d[cpu].items():
            op=int(op)
            mn=i['mn']
            sampler=len(i['toks'])>=4
            rej=i.get('rej',[0,0])
            # nsa (2:1), dmask (11:8), dim (5:3) are checked by the decoder itself
            must=[rej[0]&~(0x6|0xf00|0x38), rej[1]]
            want=[0,0]
            show=[0,0]
            for k in i.get('flip',{}):
                wi,b=map(int,k.split('.')); show[wi]|=1<<b
            name=op_of(mn)
            tid=tpl_id(['Tok::T("mimg")'])
            rows[op]='Some(Row { op: Op::%s, mn: %s, tpl: &TPL_%d, must: [0x%x, 0x%x], want: [0x%x, 0x%x], show: [0x%x, 0x%x], flags: %d })'%(
                name, json.dumps(mn), tid, must[0], must[1], want[0], want[1], show[0], show[1], int(sampler))
            st='[%s]'%', '.join('[%s]'%', '.join('[%d, %d]'%tuple(e) for e in row) for row in i['st'])
            df='[%s]'%', '.join('[%d, %d]'%tuple(e) for e in i['def'])
            info[op]='Some(MimgInfo { probe_data: %d, printed: %s, default: %s })'%(i['probe_data'],st,df)
        ROWS[(cpu,'Mimg')]=(rows,256)
        infos[cpu]=info
    o=[]
    for cpu in CPUS:
        o.append('static MIMG_INFO_%s: [Option<MimgInfo>; 256] = ['%cpu.upper())
        for k in range(256): o.append('    %s,'%infos[cpu].get(k,'None'))
        o.append('];')
    o.append('/// Address and data widths of a MIMG opcode on a target.')
    o.append('pub(crate) fn mimg_info(target: Target, op: usize) -> Option<&\'static MimgInfo> {')
    o.append('    let t: &\'static [Option<MimgInfo>] = match target {')
    for cpu in CPUS: o.append('        Target::%s => &MIMG_INFO_%s,'%(cpu.capitalize(),cpu.upper()))
    o.append('    };')
    o.append('    t.get(op).and_then(|i| i.as_ref())')
    o.append('}')
    return o
